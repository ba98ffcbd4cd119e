// The admin API's bodies as JSON Schemas (the config's field names: decisions §12), compiled at
// build time (scripts/compile-schemas.mjs → body-validators.cjs) and loaded on the first admin body.
// Unknown fields are refused; a refusal is one 400 whose `param` is the exact field path
// (`rateLimit.rpm`, `scopes[1]`). Ids that appear in URLs are URL-safe.
import { createHash } from 'node:crypto';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { errors } from '../errors/index.js';
import { loadPrebuiltValidators, schemaErrorPath } from '../validate/schema-validators.js';
import type { Scope } from '../config.js';

/** the largest amount one field takes, in USD (a balance stays an exact integer of units far beyond it) */
const MAX_USD = 1_000_000;

const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' } as const;
const cap = { type: 'number', minimum: 0, maximum: MAX_USD, nullable: true } as const;
const scopes = { type: 'array', items: { type: 'string', enum: ['messages', 'chat.completions', 'responses', 'audio.transcriptions'] }, uniqueItems: true } as const;
const models = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 100 } as const;
const rateLimit = {
  type: 'object',
  additionalProperties: false,
  properties: { rpm: { type: 'integer', minimum: 1, nullable: true }, tpm: { type: 'integer', minimum: 1, nullable: true } },
  required: [],
  nullable: true,
} as const;
const name = { type: 'string', minLength: 1, maxLength: 200, nullable: true } as const;

export interface OrgCreate {
  id: string;
  credits?: number;
  spendCap?: number | null;
}
export interface OrgUpdate {
  spendCap: number | null;
}
export interface CreditsBody {
  usd: number;
  reason: string;
}
export interface PlaceCreate {
  id: string;
  spendCap?: number | null;
}
export interface RateLimitBody {
  rpm?: number | null;
  tpm?: number | null;
}
export interface KeyCreate {
  org: string;
  project?: string;
  environment?: string;
  name?: string | null;
  scopes?: Scope[];
  models?: string[];
  spendCap?: number | null;
  rateLimit?: RateLimitBody | null;
}
export type KeyPatch = Omit<KeyCreate, 'org' | 'project' | 'environment'>;

const orgCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id, credits: { type: 'number', minimum: 0, maximum: MAX_USD, nullable: true }, spendCap: cap },
};
const orgUpdate = { type: 'object', additionalProperties: false, required: ['spendCap'], properties: { spendCap: cap } };
const credits = {
  type: 'object',
  additionalProperties: false,
  required: ['usd', 'reason'],
  properties: { usd: { type: 'number', minimum: -MAX_USD, maximum: MAX_USD, not: { const: 0 } }, reason: { type: 'string', minLength: 1, maxLength: 500 } },
};
const placeCreate = { type: 'object', additionalProperties: false, required: ['id'], properties: { id, spendCap: cap } };
const keyPatchProperties = { name, scopes: { ...scopes, nullable: true }, models: { ...models, nullable: true }, spendCap: cap, rateLimit } as const;
const keyCreate = {
  type: 'object',
  additionalProperties: false,
  required: ['org'],
  properties: { org: { type: 'string', minLength: 1 }, project: { type: 'string', minLength: 1, nullable: true }, environment: { type: 'string', minLength: 1, nullable: true }, ...keyPatchProperties },
};
const keyPatch = { type: 'object', additionalProperties: false, required: [], properties: keyPatchProperties };

interface Bodies {
  orgCreate: OrgCreate;
  orgUpdate: OrgUpdate;
  credits: CreditsBody;
  placeCreate: PlaceCreate;
  keyCreate: KeyCreate;
  keyPatch: KeyPatch;
}

/** the schemas by body, as scripts/compile-schemas.mjs compiles them */
export const ADMIN_BODY_SCHEMAS: { readonly [K in keyof Bodies]: object } = { orgCreate, orgUpdate, credits, placeCreate, keyCreate, keyPatch };

/** what the compiled validators must have been built from */
export function adminSchemasSha256(): string {
  return createHash('sha256').update(JSON.stringify(ADMIN_BODY_SCHEMAS)).digest('hex');
}

type Validators = { [K in keyof Bodies]: ValidateFunction<Bodies[K]> };

// Loaded on the first admin body (~1 ms): neither ajv nor a compile at start, where compiling these
// six cost every gateway ~7 MB of garbage (kept as committed heap) for requests it may never get.
let compiled: Validators | undefined;

function validators(): Validators {
  if (compiled === undefined) {
    compiled = loadPrebuiltValidators<Validators>(import.meta.url, './body-validators.cjs', 'schemasSha256', adminSchemasSha256(), 'other admin schemas');
  }
  return compiled;
}

function problemOf(err: ErrorObject): string {
  if (err.keyword === 'additionalProperties') return 'unknown field';
  if (err.keyword === 'required') return 'is required';
  if (err.keyword === 'enum') return `must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (err.keyword === 'not') return 'must not be 0';
  if (err.keyword === 'pattern') return 'must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit';
  return err.message ?? err.keyword;
}

/** The body as the schema's type, or a 400 naming the first offending field. */
export function checkBody<K extends keyof Bodies>(schema: K, body: unknown): Bodies[K] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw errors.adminBodyNotObject();
  const validate = validators()[schema] as ValidateFunction<Bodies[K]>;
  if (validate(body)) return body;
  const first = validate.errors![0]!;
  const path = schemaErrorPath(first);
  if (path === '') throw errors.adminBodyNotObject();
  throw errors.adminFieldInvalid(path, problemOf(first));
}
