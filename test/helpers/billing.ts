// Shared pieces of the end-to-end billing tests: a config with priced test models on the simulated
// provider and a file store (or, with GATEWAY_TEST_STORE=postgres, a fresh PostgreSQL database:
// `npm run test:postgres`), read-only views of that store (the ledger is checked after, and
// sometimes during, a run of the real bin/gateway), and the expected cost of a usage row computed
// independently from the model's configured prices.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { costUnits, pricingFromConfig } from '../../lib/pricing.js';
import type { Pricing } from '../../lib/config.js';
import { baseConfig, TEST_KEY, withModels } from './gateway.js';
import { connectTo, PG_URL_ENV, testStoreIsPostgres, type PgServer } from './postgres.js';
import { isPostgresUrl } from '../../lib/store/store-url.js';

export { TEST_KEY };

/** Output-heavy prices, so the output ceiling dominates a reservation. */
export const BILL_PRICING = { input: 1, output: 10, cacheRead: 0.1, cacheWrite: 1.25 } as const;

/** A priced test model served by the simulated Anthropic provider under the upstream name `upstream`. */
export function billModel(id: string, upstream: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    family: 'anthropic',
    deployments: [{ provider: 'sim-anthropic', model: upstream }],
    pricing: { ...BILL_PRICING },
    input: ['text'],
    contextWindow: 200000,
    maxOutputTokens: 32000,
    ...extra,
  };
}

export interface FileStore {
  dir: string;
  /** the SQLite file, or the PostgreSQL database URL */
  db: string;
  /** config file on disk, for `bin/gateway credits ... --config <file>` */
  file: string;
  config: Record<string, unknown>;
}

/** The base test config plus `models` and overrides, on a SQLite file in a fresh temp dir. */
export function fileStoreConfig(models: Record<string, unknown>[], extra: Record<string, unknown> = {}): FileStore {
  const dir = mkdtempSync(join(tmpdir(), 'gw-billing-'));
  const db = testStoreIsPostgres() ? testDatabase() : join(dir, 'gw.db');
  const config = { ...withModels(baseConfig(extra), models), store: isPostgresUrl(db) ? db : `sqlite:${db}` };
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return { dir, db, file, config };
}

export interface UsageRow {
  request_id: string;
  key_id: string;
  org: string;
  endpoint: string;
  model_served: string | null;
  provider: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  web_searches: number;
  cost: number;
  status: number;
  error_code: string | null;
}

export interface OrgRow {
  id: string;
  balance: number;
  reserved: number;
  spent: number;
}

export interface ReservationRow {
  id: string;
  request_id: string;
  org: string;
  amount: number;
  boot_id: string;
}

let pgServer: PgServer | null = null;

/** A fresh database on the server GATEWAY_TEST_PG_URL names (the test:postgres tier starts it). */
function testDatabase(): string {
  const admin = process.env[PG_URL_ENV];
  if (!admin) throw new Error(`GATEWAY_TEST_STORE=postgres needs ${PG_URL_ENV}: run the tests through \`npm run test:postgres\``);
  return pgClient().createDatabase();
}

function pgClient(): PgServer {
  return (pgServer ??= connectTo(process.env[PG_URL_ENV]!));
}

/** SQL literal of a string (the views below take ids from the tests themselves). */
const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The few reads the views make, on SQLite or PostgreSQL. */
interface ViewReads {
  all<R>(sql: string, ...params: string[]): R[];
  close(): void;
}

function sqliteReads(path: string): ViewReads {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return { all: <R>(sql: string, ...params: string[]) => db.prepare<string[], R>(sql).all(...params), close: () => db.close() };
}

function pgReads(url: string): ViewReads {
  // ? placeholders filled as literals; psql answers synchronously, as better-sqlite3 does
  return {
    all: <R>(sql: string, ...params: string[]) => {
      let i = 0;
      return pgClient().query<R>(url, sql.replace(/\?/g, () => lit(params[i++]!)).replace(/rowid/g, 'seq'));
    },
    close: () => undefined,
  };
}

/** A read-only view of the gateway's store (never writes; the gateway may be running). */
export class LedgerView {
  private readonly db: ViewReads;
  constructor(path: string) {
    this.db = isPostgresUrl(path) ? pgReads(path) : sqliteReads(path);
  }
  org(id: string): OrgRow {
    return this.db.all<OrgRow>('SELECT id, balance, reserved, spent FROM orgs WHERE id = ?', id)[0]!;
  }
  reservations(): ReservationRow[] {
    return this.db.all<ReservationRow>('SELECT id, request_id, org, amount, boot_id FROM reservations');
  }
  usage(org: string): UsageRow[] {
    return this.db.all<UsageRow>('SELECT * FROM usage WHERE org = ? ORDER BY created_at, rowid', org);
  }
  /**
   * The usage row of a request, waiting for it: settle runs when the request closes, which may be
   * just after the client has read the whole answer.
   */
  async row(org: string, requestId: string | null, ms = 5000): Promise<UsageRow | undefined> {
    const end = Date.now() + ms;
    for (;;) {
      const row = this.usage(org).find((r) => r.request_id === requestId);
      if (row || Date.now() >= end) return row;
      await sleep(20);
    }
  }
  /** credits granted and added (the credit_events journal) */
  credited(org: string): number {
    return Number(this.db.all<{ n: number | null }>('SELECT SUM(amount) AS n FROM credit_events WHERE org = ?', org)[0]!.n ?? 0);
  }
  close(): void {
    this.db.close();
  }
}

/** The cost in units of a usage row's tokens at `pricing`, computed with lib/pricing.ts. */
export function expectedCost(pricing: Pricing, u: { input: number; output: number; cacheRead: number; cacheWrite: number; webSearches?: number }): number {
  return costUnits(pricingFromConfig(pricing), { input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, reasoning: 0, webSearches: u.webSearches ?? 0 });
}

export function rowUsage(r: UsageRow): { input: number; output: number; cacheRead: number; cacheWrite: number; webSearches: number } {
  return { input: r.input_tokens, output: r.output_tokens, cacheRead: r.cache_read_tokens, cacheWrite: r.cache_write_tokens, webSearches: r.web_searches };
}

/** Messages headers for a given key. */
export function headersFor(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': key, ...extra };
}

/** Chat Completions headers for a given key. */
export function chatHeaders(key: string): Record<string, string> {
  return { 'content-type': 'application/json', authorization: `Bearer ${key}` };
}

/** The gateway's own id for a request: `x-gateway-request-id` when the upstream id took `request-id`. */
export function localRequestId(h: Headers): string | null {
  return h.get('x-gateway-request-id') ?? h.get('request-id') ?? h.get('x-request-id');
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
