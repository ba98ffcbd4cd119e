// The admin credential (decisions §12): admin routes (/metrics, later /admin/v1) take only the admin
// key, and the API endpoints refuse it. Each wording says which credential the route wants.
import { defineError } from '../errors.js';

const WHERE = '`admin.keys` in the gateway config or the GATEWAY_ADMIN_KEY environment variable';

export const adminErrors = {
  adminMissing: defineError('GW_ERR_AUTH_MISSING', () => `This route needs the admin key: send it in \`Authorization: Bearer <admin key>\` (${WHERE}).`),
  adminBearerMalformed: defineError('GW_ERR_AUTH_INVALID', () => 'The Authorization header must have the form `Bearer <admin key>`.'),
  adminHeaderRepeated: defineError('GW_ERR_AUTH_CONFLICT', () => 'The Authorization header appears more than once; send the admin key exactly once.'),
  adminInvalid: defineError('GW_ERR_AUTH_INVALID', () => 'Invalid admin key.'),
  adminNotConfigured: defineError('GW_ERR_AUTH_INVALID', () => `No admin key is configured: set ${WHERE}.`),
  adminGotApiKey: defineError('GW_ERR_SCOPE_DENIED', () => `This is an API key; this route needs the admin key (${WHERE}).`),
  apiGotAdminKey: defineError('GW_ERR_SCOPE_DENIED', () => 'This is the admin key; the API endpoints need an API key (`keys` in the gateway config).'),
};

/** The admin API (/admin/v1, lib/admin/): its resources, fields and conflicts. */
export const adminApiErrors = {
  /** a body field or query parameter ("<path>: <problem>"); `param` is the exact path */
  adminFieldInvalid: defineError('GW_ERR_REQUEST_INVALID', (path: string, problem: string) => `${path}: ${problem}`, (path) => ({ param: path })),
  adminBodyNotObject: defineError('GW_ERR_REQUEST_INVALID', () => 'The request body must be a JSON object.'),
  /** `kind`: organization, project, environment, key */
  adminNotFound: defineError('GW_ERR_NOT_FOUND', (kind: string, id: string) => `No ${kind} "${id}".`),
  adminRouteNotFound: defineError('GW_ERR_NOT_FOUND', (method: string, path: string) => `No admin route for ${method} ${path}; the admin API serves /admin/v1/orgs, /admin/v1/keys, /admin/v1/usage, /admin/v1/requests and /admin/v1/audit.`),
  adminExists: defineError('GW_ERR_CONFLICT', (kind: string, id: string) => `The ${kind} "${id}" already exists.`, { param: 'id' }),
  adminOwnedByConfig: defineError(
    'GW_ERR_CONFLICT',
    (kind: string, id: string) => `The ${kind} "${id}" comes from the gateway config, which sets it again at every start and reload: change it in the config file (and reload), or create one with the admin API.`,
  ),
  adminKeyRevoked: defineError('GW_ERR_CONFLICT', (id: string) => `The key "${id}" is revoked; a revoked key cannot be changed. Create a new one.`),
  /** a credit correction that would leave a negative balance; amounts in USD */
  adminCreditsBelowZero: defineError(
    'GW_ERR_REQUEST_INVALID',
    (org: string, usd: number, balance: number) => `usd: removing ${-usd} USD would take organization "${org}" below zero (its balance is ${balance} USD); nothing was changed.`,
    { param: 'usd' },
  ),
};
