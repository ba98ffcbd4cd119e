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
