// The store on PostgreSQL (`store: "postgres://user:password@host:port/db"`), for many replicas
// sharing one ledger: the same interface and rules as the SQLite store (../store.ts). Opened with
// a pool of `storePool` connections (config; default 10) plus one that listens for key changes;
// migrated at start under an advisory lock; a database that cannot be reached is one start-up
// error naming the URL without its password.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import type { Config } from '../../config.js';
import { GatewayError } from '../../errors.js';
import { errors } from '../../errors/index.js';
import { MACHINE } from '../lease.js';
import type { Unsettled } from '../settle-backlog.js';
import type { GatewayStore, StoreLog } from '../store-api.js';
import { redactStoreUrl } from '../store-url.js';
import { capUnits, hashKey, keyRows, toRecord, usdToUnits } from '../key-rows.js';
import { FoundKeys } from '../found-keys.js';
import type { KeyRecord } from '../types.js';
import type { KeyRow } from '../seed-keys.js';
import { KeyWatch, loadKeys, reconcileKeysPg } from './pg-keys.js';
import { PgLedger } from './pg-ledger.js';
import { AdminOps } from '../admin-ops.js';
import { PgAdminRunner } from './pg-admin.js';
import { migrate } from './pg-migrations.js';

const SHUTDOWN_SETTLE_RETRY_MS = 1500;
/** pg_advisory_xact_lock key of the seed ('gwsd'): replicas starting together seed one at a time */
const SEED_LOCK = 0x67777364;

/** BIGINT columns as numbers: every amount is a safe integer of units (below 2^53). */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export interface PgStoreOptions {
  /** most pooled connections */
  pool: number;
}

/** What to do about a database that cannot be reached or used, by the error's code. */
function fixFor(code: string): string {
  if (code === '28P01' || code === '28000') return 'The user or password in `store` is refused: check them (the password may come from the environment, e.g. "${PGPASSWORD}").';
  if (code === '3D000') return 'The database in `store` does not exist: create it (createdb) or name another one.';
  if (code === '42501') return 'The user in `store` may not create tables there: grant it CREATE on the database, or migrate once as its owner.';
  return 'Check that PostgreSQL (15 or later) is running and reachable at the host and port in `store`, or set `store` to another database (postgres://user:password@host:port/db).';
}

function openError(url: string, err: unknown): GatewayError {
  if (GatewayError.is(err)) return err;
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  let reason = err instanceof Error ? err.message : String(err);
  const password = (() => {
    try {
      return decodeURIComponent(new URL(url).password);
    } catch {
      return '';
    }
  })();
  if (password !== '') reason = reason.split(password).join('***');
  if (reason === '') reason = code || 'unknown error';
  return errors.storeUnopenable(redactStoreUrl(url), code !== '' && !reason.includes(code) ? `${reason} (${code})` : reason, fixFor(code));
}

export class PgStore implements GatewayStore {
  readonly kind = 'postgres';
  readonly bootId = randomUUID();
  readonly ledger: PgLedger;
  readonly admin: AdminOps;
  /** enabled keys by hash (pg-keys.ts keeps it current) */
  private keys = new Map<string, KeyRecord>();
  /** records of `keys` found, by the credential as presented: cleared whenever `keys` is replaced */
  private readonly found = new FoundKeys();
  private watch: KeyWatch | null = null;
  private leased = false;
  private closed = false;
  private left: Unsettled[] = [];

  private constructor(
    private readonly pool: Pool,
    private readonly connection: pg.ClientConfig,
    private readonly url: string,
    poolSize: number,
  ) {
    // one connection stays free of batches for leases, sweeps and reads
    this.ledger = new PgLedger(pool, this.bootId, Math.max(1, poolSize - 1));
    // a key the admin API changed serves (or is refused) here as soon as the change answers
    this.admin = new AdminOps(new PgAdminRunner(pool, async () => this.useKeys(await loadKeys(pool))));
  }

  static async open(url: string, opts: PgStoreOptions): Promise<PgStore> {
    // JIT off: the ledger's statements are tiny, and JIT compilation of gateway_batch's (planned on
    // estimates of jsonb rows) costs more than they take
    const connection: pg.ClientConfig = { connectionString: url, types: TYPES, connectionTimeoutMillis: 5000, application_name: 'model-gateway', options: '-c jit=off' };
    const pool = new pg.Pool({ ...connection, max: opts.pool });
    // an idle connection the server dropped: the next query gets a new one (and reports if it cannot)
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client);
      } finally {
        client.release();
      }
      const store = new PgStore(pool, connection, url, opts.pool);
      store.useKeys(await loadKeys(pool));
      return store;
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw openError(url, err);
    }
  }

  private useKeys(rows: Map<string, KeyRow>): void {
    const next = new Map<string, KeyRecord>();
    for (const [hash, row] of rows) next.set(hash, toRecord(row));
    this.keys = next;
    this.found.clear();
  }

  /** The key record for a presented credential, or null: a key found before skips the hash (found-keys.ts). */
  findKey(presented: string): KeyRecord | null {
    const known = this.found.get(presented);
    if (known !== undefined) return known;
    const record = this.keys.get(hashKey(presented));
    if (record === undefined) return null;
    this.found.remember(presented, record);
    return record;
  }

  /**
   * Another replica announced a key change on the bus (lib/limits/bus.ts): what was found by
   * presented credential is dropped. The keys themselves are reloaded by the key watch (NOTIFY,
   * key_epoch), whose reload clears this again.
   */
  forgetKeys(): void {
    this.found.clear();
  }

  /** Runs `work` in one transaction holding the seed lock. */
  private async seedTx(work: (client: PoolClient) => Promise<void>): Promise<void> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw openError(this.url, err);
    }
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
      await work(client);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw openError(this.url, err);
    } finally {
      client.release();
    }
  }

  async seed(config: Config): Promise<void> {
    const rows = keyRows(config.keys ?? []);
    await this.seedTx(async (client) => {
      await seedOrgsPg(client, config);
      await reconcileKeysPg(client, rows);
    });
    // this process serves the new keys at once; the others on their NOTIFY
    this.useKeys(await loadKeys(this.pool));
  }

  async seedOrgs(config: Config): Promise<void> {
    await this.seedTx((client) => seedOrgsPg(client, config));
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async renewLease(expireMs: number): Promise<boolean> {
    const now = '(extract(epoch FROM clock_timestamp()) * 1000)::BIGINT';
    const { rows } = await this.pool.query<{ lapsed: boolean }>(
      `WITH prev AS (SELECT expires_at FROM leases WHERE owner = $1)
       INSERT INTO leases (owner, machine, pid, expires_at) VALUES ($1, $2, $3, ${now} + $4)
       ON CONFLICT (owner) DO UPDATE SET expires_at = excluded.expires_at
       RETURNING coalesce((SELECT expires_at <= ${now} FROM prev), true) AS lapsed`,
      [this.bootId, MACHINE, process.pid, expireMs],
    );
    const lapsed = this.leased && rows[0]!.lapsed;
    this.leased = true;
    return !lapsed;
  }

  async endLease(): Promise<void> {
    await this.pool.query('DELETE FROM leases WHERE owner = $1', [this.bootId]);
  }

  releaseStale(): Promise<number> {
    return this.ledger.releaseStale();
  }

  async startServing(log: StoreLog): Promise<void> {
    if (this.watch !== null) return;
    this.watch = new KeyWatch(this.pool, this.connection, (keys) => this.useKeys(keys), log);
    await this.watch.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.watch?.close();
    await this.ledger.flush();
    this.left = await this.ledger.backlog.drainAsync(SHUTDOWN_SETTLE_RETRY_MS);
    if (this.leased) await this.endLease().catch(() => undefined);
    await this.pool.end();
  }

  unsettled(): Unsettled[] {
    return this.closed ? this.left : this.ledger.backlog.unsettled();
  }
}

/** Organizations, projects and environments from the config; credits granted when an org is created. */
async function seedOrgsPg(client: PoolClient, config: Config): Promise<void> {
  for (const org of config.orgs ?? []) {
    const credits = usdToUnits(org.credits ?? 0);
    const created = await client.query('INSERT INTO orgs (id, balance, spend_cap) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING', [org.id, credits, capUnits(org.spendCap)]);
    if (created.rowCount === 0) await client.query('UPDATE orgs SET spend_cap = $2 WHERE id = $1', [org.id, capUnits(org.spendCap)]);
    else if (credits > 0) {
      await client.query('INSERT INTO credit_events (org, amount, reason, created_at) VALUES ($1, $2, $3, $4)', [org.id, credits, 'initial credits from config', Date.now()]);
    }
    for (const project of org.projects ?? []) {
      await client.query('INSERT INTO projects (org, id, spend_cap) VALUES ($1, $2, $3) ON CONFLICT (org, id) DO UPDATE SET spend_cap = excluded.spend_cap', [
        org.id,
        project.id,
        capUnits(project.spendCap),
      ]);
      for (const env of project.environments ?? []) {
        await client.query(
          'INSERT INTO environments (org, project, id, spend_cap) VALUES ($1, $2, $3, $4) ON CONFLICT (org, project, id) DO UPDATE SET spend_cap = excluded.spend_cap',
          [org.id, project.id, env.id, capUnits(env.spendCap)],
        );
      }
    }
  }
}
