// The ledger tests' shared fixture: an in-memory (or file) store seeded with organizations at every
// cap level, their keys, and a usage record for a reservation.
import { finalizeConfig, type Config } from '../../lib/config.js';
import type { GatewayError } from '../../lib/errors.js';
import { Store } from '../../lib/store/store.js';
import { openStore } from '../../lib/store/open-store.js';
import type { GatewayStore } from '../../lib/store/store-api.js';
import { isPostgresUrl } from '../../lib/store/store-url.js';
import { connectTo, PG_URL_ENV, testStoreIsPostgres } from '../helpers/postgres.js';
import type { KeyRecord, Reservation, UsageRecord } from '../../lib/store/types.js';

export const USD = 1_000_000_000;

export function config(store = 'sqlite::memory:'): Config {
  return finalizeConfig(
    {
      store,
      providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
      models: [{ id: 'sim/m', deployments: [{ provider: 'sim', model: 'm' }], pricing: { input: 1, output: 1 } }],
      orgs: [
        { id: 'acme', credits: 100 },
        { id: 'poor', credits: 0.01 },
        { id: 'broke', credits: 0 },
        { id: 'capped', credits: 100, spendCap: 5, projects: [{ id: 'p', spendCap: 4, environments: [{ id: 'e', spendCap: 3 }] }] },
      ],
      keys: [
        { id: 'k_acme', key: 'sk-ledger-acme', org: 'acme' },
        { id: 'k_poor', key: 'sk-ledger-poor', org: 'poor' },
        { id: 'k_broke', key: 'sk-ledger-broke', org: 'broke' },
        { id: 'k_key', key: 'sk-ledger-key-cap', org: 'capped', project: 'p', environment: 'e', spendCap: 2 },
        { id: 'k_env', key: 'sk-ledger-env-cap', org: 'capped', project: 'p', environment: 'e' },
        { id: 'k_proj', key: 'sk-ledger-proj-cap', org: 'capped', project: 'p' },
        { id: 'k_org', key: 'sk-ledger-org-cap', org: 'capped' },
      ],
    },
    {},
  );
}

const SECRETS: Record<string, string> = {
  k_acme: 'sk-ledger-acme',
  k_poor: 'sk-ledger-poor',
  k_broke: 'sk-ledger-broke',
  k_key: 'sk-ledger-key-cap',
  k_env: 'sk-ledger-env-cap',
  k_proj: 'sk-ledger-proj-cap',
  k_org: 'sk-ledger-org-cap',
};

export function open(url = 'sqlite::memory:'): { store: Store; key: (id: string) => KeyRecord } {
  const store = new Store(url);
  store.seed(config(url));
  return { store, key: (id) => store.findKey(SECRETS[id]!)! };
}

export function record(r: Reservation, key: KeyRecord, cost: number): UsageRecord {
  return {
    requestId: r.requestId,
    keyId: key.id,
    org: key.org,
    project: key.project,
    environment: key.environment,
    endpoint: 'messages',
    modelRequested: 'opus',
    modelServed: 'sim/m',
    provider: 'sim',
    inputTokens: 10,
    outputTokens: 20,
    cacheReadTokens: 3,
    cacheWriteTokens: 4,
    reasoningTokens: 5,
    webSearches: 1,
    audioSeconds: null,
    cost,
    callName: 'call',
    endUserId: 'user-1',
    status: 200,
    errorCode: null,
    latencyMs: 12,
  };
}

let n = 0;
export const rid = (): string => `req_${++n}`;


/** A store under test, on SQLite or (GATEWAY_TEST_STORE=postgres) PostgreSQL, with synchronous SQL reads. */
export interface AnyStore {
  store: GatewayStore;
  key: (id: string) => KeyRecord;
  /** rows of a query, read synchronously (better-sqlite3, or psql) so a test can look between turns */
  rows: <R>(sql: string) => R[];
  /** the store URL (open it again for a second process) */
  url: string;
}

/**
 * `open`, on the store the test run asks for: SQLite (`url`, default in memory) or, with
 * GATEWAY_TEST_STORE=postgres, a fresh PostgreSQL database (or `url` when it names one).
 */
export async function openAny(url?: string): Promise<AnyStore> {
  const target = url ?? (testStoreIsPostgres() ? connectTo(process.env[PG_URL_ENV]!).createDatabase() : 'sqlite::memory:');
  const store = await openStore({ store: target, storePool: 4 });
  await store.seed(config(target));
  const rows = isPostgresUrl(target)
    ? <R>(sql: string): R[] => connectTo(process.env[PG_URL_ENV]!).query<R>(target, sql)
    : <R>(sql: string): R[] => (store as Store).db.prepare<[], R>(sql).all();
  return { store, key: (id) => store.findKey(SECRETS[id]!)!, rows, url: target };
}

/** A temp store URL for tests that need two processes on one store: a file, or a fresh database. */
export function sharedStoreUrl(dir: string): string {
  return testStoreIsPostgres() ? connectTo(process.env[PG_URL_ENV]!).createDatabase() : `sqlite:${dir}/gateway.db`;
}

/** every counter of every level of a SQLite store, as one comparable value */
export const allCounters = (store: Store): unknown =>
  ['orgs', 'keys', 'projects', 'environments'].map((table) =>
    store.db.prepare(`SELECT *, '${table}' AS t FROM ${table} ORDER BY 1, 2, 3`).all().map((r) => ({ ...(r as object), hash: undefined })),
  );

/** what a settled hold or end says: the reservation's amount, whether it ended, or the refusal's code, param and message */
export const outcome = (s: PromiseSettledResult<Reservation | boolean>): unknown =>
  s.status === 'fulfilled'
    ? typeof s.value === 'boolean' ? s.value : s.value.amount
    : { code: (s.reason as GatewayError).code, param: (s.reason as GatewayError).param, message: (s.reason as Error).message };
