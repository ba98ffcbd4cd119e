// Configuration: one JSON file (or the built-in default), `${ENV}` substitution, validation against
// lib/config.schema.json with ajv (errors name the path), cross-reference checks (here and in
// config-references.ts), then deep-freeze. The schema is compiled at build time
// (scripts/compile-schemas.mjs → dist/lib/config-validator.cjs), not at each start.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { checkReferences } from './config-references.js';
import { errors } from './errors/index.js';
import { dropParamProblem } from './providers/drop-params.js';
import { loadPrebuiltValidators, schemaErrorPath } from './validate/schema-validators.js';
import type { QualityProfile } from './router/router-api.js';
import { checkWebSearchConfig } from './search/config-check.js';
import type { WebSearchConfig } from './search/types.js';
import { resolveStoreUrl } from './store/store-url.js';

export type Modality = 'text' | 'image' | 'audio';
export type Scope = 'messages' | 'chat.completions' | 'responses' | 'audio.transcriptions';

export interface ProviderConfig {
  id: string;
  protocol: 'anthropic' | 'openai';
  baseUrl?: string;
  apiKey?: string;
  simulated?: boolean;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  headers?: Record<string, string>;
  /** top-level request members never sent to this provider (lib/providers/drop-params.ts) */
  dropParams?: string[];
}

export interface DeploymentConfig {
  provider: string;
  model: string;
  api?: 'messages' | 'chat' | 'responses' | 'transcriptions';
}

export interface Pricing {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  perMinute?: number;
  webSearch?: number;
}

export interface ModelConfig {
  id: string;
  family?: string;
  displayName?: string;
  created?: string;
  aliases?: string[];
  snapshots?: Record<string, string>;
  deployments: DeploymentConfig[];
  pricing?: Pricing;
  input?: Modality[];
  contextWindow?: number;
  maxOutputTokens?: number;
  reasoning?: boolean;
  /** may be named by a Messages advisor tool (decisions §10) */
  advisor?: boolean;
  tools?: boolean;
  speeds?: ('standard' | 'fast')[];
  /** answers search-only requests (§11): `gateway-auto` sends a request whose only tool is web search here */
  webSearch?: boolean;
  /** the router's quality profile (lib/router/router-api.ts); absent: the built-in default, else neutral */
  quality?: QualityProfile;
}

/** `gateway-auto`'s policy (stages/route.ts); defaults in config.schema.json. */
export interface RouterConfig {
  /** catalog ids gateway-auto may pick; absent: every text model */
  candidates?: string[];
  /** the cheapest candidate whose predicted quality is at least this fraction of the best one's */
  target: number;
  /** a session stays pinned to its model this long after its last request */
  stickySeconds: number;
  /** a provider prompt cache is taken as warm this long after the session's last request */
  cacheSeconds: number;
}

export interface EnvironmentConfig {
  id: string;
  spendCap?: number | null;
}
export interface ProjectConfig {
  id: string;
  spendCap?: number | null;
  environments?: EnvironmentConfig[];
}
export interface OrgConfig {
  id: string;
  credits?: number;
  spendCap?: number | null;
  projects?: ProjectConfig[];
  /** this organisation's own `gateway-auto` policy: overrides `router.target` */
  router?: { target?: number };
}

export interface KeyConfig {
  id?: string;
  key: string;
  org: string;
  project?: string;
  environment?: string;
  scopes?: Scope[];
  models?: string[];
  spendCap?: number | null;
  rateLimit?: { rpm?: number; tpm?: number };
}

/** Timeouts of every client connection (lib/server.ts, lib/body-clock.ts); defaults in config.schema.json. */
export interface ConnectionsConfig {
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  bodyGraceMs: number;
  bodyMinBytesPerSecond: number;
  refusedBodyDrainMs: number;
  refusedBodyDrainBytes: number;
}

/** GET /metrics and the series behind it (lib/metrics/); defaults in config.schema.json. */
export interface MetricsConfig {
  enabled: boolean;
  public: boolean;
}

export interface Config {
  listen: { host: string; port: number };
  store: string;
  /** most connections of a PostgreSQL store per process */
  storePool: number;
  /** lease renewal and expiry (lib/store/lease.ts) */
  lease: { renewMs: number; expireMs: number };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  shutdownGraceMs: number;
  pingIntervalMs: number;
  maxBodyBytes: number;
  /** most request-body bytes held in memory by all requests together (lib/body-budget.ts) */
  maxBufferedBodyBytes: number;
  connections: ConnectionsConfig;
  /** the admin credential (lib/admin/credential.ts): `key` is the older spelling of one of `keys` */
  admin?: { key?: string; keys?: string[] };
  metrics: MetricsConfig;
  providers: ProviderConfig[];
  models: ModelConfig[];
  transcription?: { defaultModel?: string };
  router: RouterConfig;
  anthropicVersions?: string[];
  orgs?: OrgConfig[];
  keys?: KeyConfig[];
  /** write every upstream response body to this folder (bin/gateway --record) */
  recordDir?: string;
  /** web search run by the gateway (decisions §11, lib/search/) */
  webSearch?: WebSearchConfig;
  /** `redis://host:port`: rate limits, sticky sessions and key revocation shared by replicas (lib/limits/) */
  limits?: string;
  /** OpenTelemetry traces over OTLP/HTTP (lib/tracing/); absent: only the OTEL_* environment turns them on */
  otel?: OtelConfig;
}

/** Where traces go (lib/tracing/otel-target.ts says how it combines with the OTEL_* environment). */
export interface OtelConfig {
  /** the OTLP/HTTP traces URL, e.g. http://127.0.0.1:4318/v1/traces */
  endpoint?: string;
  /** default OTEL_SERVICE_NAME, else "model-gateway" */
  serviceName?: string;
  /** sent with every export (a collector's credential, as `${ENV_VAR}`) */
  headers?: Record<string, string>;
}

/**
 * The validator ajv generated from config.schema.json at build time (standalone code: the same
 * checks and errors as compiling the schema here, without its ~150 ms and ~12 MB of garbage at
 * every start).
 */
const schemaText = readFileSync(fileURLToPath(new URL('./config.schema.json', import.meta.url)), 'utf8');
const validateSchema = loadPrebuiltValidators<ValidateFunction<Config>>(import.meta.url, './config-validator.cjs', 'schemaSha256', createHash('sha256').update(schemaText).digest('hex'), 'another config.schema.json');

function pathOf(err: ErrorObject): string {
  return schemaErrorPath(err) || '(root)';
}

function describe(err: ErrorObject): string {
  if (err.keyword === 'additionalProperties') return 'unknown field';
  if (err.keyword === 'required') return 'is required';
  if (err.keyword === 'enum') return `must be one of ${JSON.stringify((err.params as { allowedValues: unknown[] }).allowedValues)}`;
  return err.message ?? err.keyword;
}

/** Replace `${NAME}` in every string with the environment value; a missing variable is an error naming the path. */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const v = env[name];
      if (v === undefined) throw errors.configInvalid(`${path || '(root)'}: environment variable ${name} is not set`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, env, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteEnv(v, env, path ? `${path}.${k}` : k);
    return out;
  }
  return value;
}

function crossCheck(config: Config): void {
  const providerIds = new Set<string>();
  config.providers.forEach((p, i) => {
    if (providerIds.has(p.id)) throw errors.configInvalid(`providers[${i}].id: duplicate provider id "${p.id}"`);
    providerIds.add(p.id);
    if (!p.simulated && !p.baseUrl) throw errors.configInvalid(`providers[${i}].baseUrl: is required unless "simulated" is true`);
    p.dropParams?.forEach((name, j) => {
      const problem = dropParamProblem(name);
      if (problem !== null) throw errors.configInvalid(`providers[${i}].dropParams[${j}]: ${problem}`);
    });
  });
  const names = new Map<string, string>();
  const claim = (name: string, owner: string, path: string): void => {
    const prev = names.get(name);
    if (prev !== undefined && prev !== owner) throw errors.configInvalid(`${path}: "${name}" already names model "${prev}"`);
    names.set(name, owner);
  };
  config.models.forEach((m, i) => {
    claim(m.id, m.id, `models[${i}].id`);
    m.aliases?.forEach((a, j) => claim(a, m.id, `models[${i}].aliases[${j}]`));
    m.deployments.forEach((d, j) => {
      if (!providerIds.has(d.provider)) throw errors.configInvalid(`models[${i}].deployments[${j}].provider: unknown provider "${d.provider}"`);
    });
    const p = m.pricing;
    const transcription = m.deployments.every((d) => d.api === 'transcriptions');
    const priced = p !== undefined && ((p.input !== undefined && p.output !== undefined) || (transcription && p.perMinute !== undefined));
    if (!priced) throw errors.configInvalid(`models[${i}].pricing: model "${m.id}" has no price (input and output per million tokens${transcription ? ', or perMinute' : ''}); an unpriced model is never served for free`);
  });
  const orgs = new Map((config.orgs ?? []).map((o) => [o.id, o]));
  (config.keys ?? []).forEach((k, i) => {
    const org = orgs.get(k.org);
    if (!org) throw errors.configInvalid(`keys[${i}].org: unknown organization "${k.org}"`);
    if (k.environment !== undefined && k.project === undefined) throw errors.configInvalid(`keys[${i}].environment: needs "project"`);
    if (k.project !== undefined) {
      const project = org.projects?.find((p) => p.id === k.project);
      if (!project) throw errors.configInvalid(`keys[${i}].project: unknown project "${k.project}" in organization "${k.org}"`);
      if (k.environment !== undefined && !project.environments?.some((e) => e.id === k.environment)) {
        throw errors.configInvalid(`keys[${i}].environment: unknown environment "${k.environment}" in project "${k.project}"`);
      }
    }
  });
  const seen = new Set<string>();
  (config.keys ?? []).forEach((k, i) => {
    if (seen.has(k.key)) throw errors.configInvalid(`keys[${i}].key: the same key is listed twice`);
    seen.add(k.key);
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Validate a parsed config object (after env substitution) and freeze it. `configDir`, for a config
 * read from a file, is where a relative `sqlite:` store path is resolved (see store/store-url.ts).
 */
export function finalizeConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env, configDir?: string): Config {
  const substituted = substituteEnv(structuredClone(raw), env);
  if (!validateSchema(substituted)) {
    const found = validateSchema.errors ?? [];
    const lines = found.filter((e) => e.keyword !== 'if').map((e) => `${pathOf(e)}: ${describe(e)}`);
    throw errors.configInvalid([...new Set(lines)].join('; '));
  }
  crossCheck(substituted);
  checkReferences(substituted, errors.configInvalid);
  checkWebSearchConfig(substituted.webSearch, errors.configInvalid);
  if (configDir !== undefined) substituted.store = resolveStoreUrl(substituted.store, configDir);
  return deepFreeze(substituted);
}

export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw errors.configUnreadable(file, err as Error);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw errors.configNotJson(file, err as Error);
  }
  return finalizeConfig(raw, env, dirname(resolve(file)));
}
