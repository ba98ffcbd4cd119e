// The embedded store: better-sqlite3 at the configured path (`sqlite:data/gateway.db`, or
// `sqlite::memory:` for tests), migrated at open. Keys are stored as SHA-256 hashes only and looked
// up by hash, a key found then remembered by what was presented (sqlite-keys.ts). Several processes
// may share one file (a rolling restart, bin/gateway --workers): each holds a lease (lease.ts), and
// a key changed by one is seen by the others through the key_epoch counter (startServing).
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { MIGRATIONS, NEW_FILE_PAGE_SIZE } from './migrations.js';
import { storeFile } from './store-url.js';
import { reconcileKeys } from './seed-keys.js';
import type { KeyRecord } from './types.js';
import { capUnits, keyRows, usdToUnits } from './key-rows.js';
import { SqliteKeys } from './sqlite-keys.js';
import { SqliteLedger } from './ledger.js';
import { StoreFaultSwitch } from './fault-switch.js';
import type { Unsettled } from './settle-backlog.js';
import { storeOpenError } from './store-errors.js';
import { GatewayError } from '../errors.js';
import { MACHINE } from './lease.js';
import type { GatewayStore, StoreLog } from './store-api.js';
import { AdminOps } from './admin-ops.js';
import { WalCheckpointer } from './checkpointer.js';
import { switchToWal } from './wal-switch.js';
import { SqliteAdminRunner } from './admin-sqlite.js';

// the config ↔ row mapping of keys lives in key-rows.ts; re-exported for the store's importers
export { capUnits, hashKey, keyRows, toRecord, usdToUnits } from './key-rows.js';

/** How long shutdown keeps retrying settles the store refused before it gives up on them. */
const SHUTDOWN_SETTLE_RETRY_MS = 1500;

/** How often a serving process looks for key changes made by another process on the same file. */
const KEY_CHECK_MS = 250;

export class Store implements GatewayStore {
  readonly kind = 'sqlite';
  readonly db: Database.Database;
  /** identifies this process: reservations of another boot are stale (a crashed process left them) */
  readonly bootId = randomUUID();
  readonly ledger: SqliteLedger;
  readonly admin: AdminOps;
  /** key lookups, remembered until `forgetKeys` */
  private readonly keys: SqliteKeys;
  /** the database file ('' in memory) */
  private readonly file: string;
  private checkpointer: WalCheckpointer | null = null;
  private keyWatch: NodeJS.Timeout | null = null;
  /** whether this process has taken its lease (a renewal then tells whether it had lapsed) */
  private leased = false;
  /** what shutdown could not settle (set by `close`) */
  private left: Unsettled[] = [];

  /**
   * `mustExist`: open an existing database file only (never create one), as `gateway credits` does.
   * A file that cannot be opened, prepared or migrated throws one GatewayError naming it and the fix.
   */
  constructor(url: string, opts: { mustExist?: boolean } = {}) {
    const path = storeFile(url);
    const memory = path === null;
    this.file = memory ? '' : path;
    try {
      if (!memory && !opts.mustExist) mkdirSync(dirname(path), { recursive: true });
      this.db = new Database(memory ? ':memory:' : path, { fileMustExist: opts.mustExist === true });
      // first: processes opening one file together (--workers, a rolling restart) wait for each
      // other's locks instead of failing with SQLITE_BUSY at once (the WAL switch, which SQLite
      // may refuse without waiting, is tried again for as long: wal-switch.ts)
      this.db.pragma('busy_timeout = 5000');
      // before the WAL switch writes the header; a file that exists keeps its page size
      this.db.pragma(`page_size = ${NEW_FILE_PAGE_SIZE}`);
      if (!memory) switchToWal(this.db);
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.migrate();
    } catch (err) {
      throw storeOpenError(memory ? url : path, err);
    }
    this.keys = new SqliteKeys(this.db);
    this.ledger = new SqliteLedger(this.db, this.bootId);
    this.ledger.faults = StoreFaultSwitch.fromEnv(this.db);
    this.admin = new AdminOps(new SqliteAdminRunner(this.db, () => this.forgetKeys()));
  }

  /**
   * Each migration in a write (IMMEDIATE) transaction that reads the version again: processes
   * starting together on a new file (a rolling restart, --workers) migrate it once, one at a time.
   */
  private migrate(): void {
    const version = (): number => this.db.pragma('user_version', { simple: true }) as number;
    if (version() >= MIGRATIONS.length) return;
    const step = this.db.transaction((): boolean => {
      const v = version();
      if (v >= MIGRATIONS.length) return false;
      this.db.exec(MIGRATIONS[v]!);
      this.db.pragma(`user_version = ${v + 1}`);
      return true;
    });
    while (step.immediate());
  }

  /**
   * Seed organizations, projects, environments and keys from the config. Credits are granted once,
   * when an organization is first created; later starts keep the stored balance. Caps and key
   * attributes follow the config; keys are reconciled by id (rotation, renames, removals: see
   * seed-keys.ts). One transaction; the key cache is cleared after it, so a second seed on a live
   * store (a reload) takes effect at the next request.
   */
  seed(config: Config): void {
    const rows = keyRows(config.keys ?? []);
    try {
      // IMMEDIATE: another process seeding the same file at the same time waits instead of failing
      this.db
        .transaction(() => {
          this.seedOrgsInTx(config);
          reconcileKeys(this.db, rows);
        })
        .immediate();
    } catch (err) {
      // a config rule (a key id taken) stays as it is; a store that refuses the write names its file
      throw GatewayError.is(err) ? err : storeOpenError(this.file || ':memory:', err);
    }
    this.forgetKeys();
  }

  /**
   * Organizations, projects and environments only: what `gateway credits` needs to find an org the
   * config added since the gateway last started. It leaves keys alone: a key is the serving
   * gateway's business (the built-in default's key is random at each start, for one).
   */
  seedOrgs(config: Config): void {
    this.db.transaction(() => this.seedOrgsInTx(config)).immediate();
  }

  private seedOrgsInTx(config: Config): void {
    const db = this.db;
    const insertOrg = db.prepare('INSERT INTO orgs (id, balance, spend_cap) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET spend_cap = excluded.spend_cap');
    const orgExists = db.prepare<[string], { id: string }>('SELECT id FROM orgs WHERE id = ?');
    const creditEvent = db.prepare('INSERT INTO credit_events (org, amount, reason, created_at) VALUES (?, ?, ?, ?)');
    const insertProject = db.prepare('INSERT INTO projects (org, id, spend_cap) VALUES (?, ?, ?) ON CONFLICT(org, id) DO UPDATE SET spend_cap = excluded.spend_cap');
    const insertEnv = db.prepare('INSERT INTO environments (org, project, id, spend_cap) VALUES (?, ?, ?, ?) ON CONFLICT(org, project, id) DO UPDATE SET spend_cap = excluded.spend_cap');
    for (const org of config.orgs ?? []) {
      const credits = usdToUnits(org.credits ?? 0);
      const isNew = orgExists.get(org.id) === undefined;
      insertOrg.run(org.id, credits, capUnits(org.spendCap));
      if (isNew && credits > 0) creditEvent.run(org.id, credits, 'initial credits from config', Date.now());
      for (const project of org.projects ?? []) {
        insertProject.run(org.id, project.id, capUnits(project.spendCap));
        for (const env of project.environments ?? []) insertEnv.run(org.id, project.id, env.id, capUnits(env.spendCap));
      }
    }
  }

  /** The key record for a presented credential, or null. */
  findKey(presented: string): KeyRecord | null {
    return this.keys.find(presented);
  }

  /**
   * The keys may have changed (a reload, an admin change, another process's: key_epoch or the bus,
   * lib/limits/bus.ts): the next lookup of each reads the store.
   */
  forgetKeys(): void {
    this.keys.forget();
  }

  ping(): void {
    this.db.prepare('SELECT 1').get();
  }

  /** Writes this process's lease (lease.ts); false when it had lapsed or been removed since the last one. */
  renewLease(expireMs: number): boolean {
    const now = Date.now();
    const prev = this.db.prepare<[string], { expires_at: number }>('SELECT expires_at FROM leases WHERE owner = ?').get(this.bootId);
    this.db
      .prepare('INSERT INTO leases (owner, machine, pid, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT(owner) DO UPDATE SET expires_at = excluded.expires_at')
      .run(this.bootId, MACHINE, process.pid, now + expireMs);
    const lapsed = this.leased && (prev === undefined || prev.expires_at <= now);
    this.leased = true;
    return !lapsed;
  }

  endLease(): void {
    if (this.db.open) this.db.prepare('DELETE FROM leases WHERE owner = ?').run(this.bootId);
  }

  releaseStale(): number {
    return this.ledger.releaseStale();
  }

  /**
   * A serving gateway's background work: WAL checkpoints (checkpointer.ts), and a look every 250 ms at the
   * keys' change counter (a trigger bumps it), so a key revoked, rotated or disabled by another
   * process on the same file (its SIGHUP, the CLI) is refused here too well within a second.
   */
  startServing(log: StoreLog): void {
    this.startCheckpointer(100, (err) => log.warn({ err: err.message }, 'WAL checkpointer: falling back to SQLite automatic checkpoints'));
    if (this.keyWatch !== null) return;
    const epoch = this.db.prepare<[], { n: number }>('SELECT n FROM key_epoch');
    let seen = epoch.get()!.n;
    this.keyWatch = setInterval(() => {
      try {
        const n = epoch.get()!.n;
        if (n !== seen) this.forgetKeys();
        seen = n;
      } catch (err) {
        log.warn({ err: String(err) }, 'checking the keys for changes failed');
      }
    }, KEY_CHECK_MS);
    this.keyWatch.unref();
  }

  /**
   * Take WAL checkpoints out of the commits, their syncs off the event loop (see checkpointer.ts):
   * the serving gateway calls this; short-lived commands (credits) keep SQLite's automatic
   * checkpoint. No-op in memory.
   */
  startCheckpointer(everyMs = 250, onError?: (err: Error) => void): void {
    if (this.file === '' || this.checkpointer !== null) return;
    this.db.pragma('wal_autocheckpoint = 0');
    this.db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    try {
      this.checkpointer = new WalCheckpointer(this.file, everyMs, (err) => onError?.(new Error(`WAL checkpoint failed: ${err.message}`)));
    } catch (err) {
      // without it, SQLite's own automatic checkpoint takes over again
      this.db.pragma('wal_autocheckpoint = 1000');
      onError?.(err as Error);
    }
  }

  /**
   * Shutdown: commits what is queued, gives settles the store refused a last bounded retry, and
   * closes the file. Idempotent. What could not be settled is then `unsettled()`.
   */
  close(): void {
    if (!this.db.open) return;
    if (this.keyWatch !== null) clearInterval(this.keyWatch);
    this.keyWatch = null;
    this.ledger.flush();
    this.left = this.ledger.backlog.drain(SHUTDOWN_SETTLE_RETRY_MS, sleepSync);
    try {
      if (this.leased) this.endLease();
    } catch {
      // a store that cannot be written: the lease expires on its own
    }
    if (this.checkpointer !== null) {
      this.checkpointer.stop();
      this.checkpointer = null;
      // what was not copied yet goes into the database file now (shutdown may block), and the WAL is
      // emptied. TRUNCATE answers busy when another connection is in the middle of its own
      // checkpoint (milliseconds: try again), and when another process still serving holds a
      // snapshot of the WAL (its checkpointer's guard, which lets go only once the WAL is large): it
      // then still copies every frame it may, and the WAL, being in use, stays for that process. So
      // it is not waited for through busy_timeout, and tried again for at most a second.
      try {
        this.db.pragma('busy_timeout = 0');
        for (let i = 0; i < 100 && checkpointBusy(this.db.pragma('wal_checkpoint(TRUNCATE)')); i++) sleepSync(10);
      } catch {
        // a store that cannot be written (disk full): the WAL stays, SQLite replays it at the next open
      }
    }
    this.db.close();
  }

  /** Settles the store refused and shutdown could not commit (empty while open, or when all went in). */
  unsettled(): Unsettled[] {
    return this.db.open ? this.ledger.backlog.unsettled() : this.left;
  }
}

/** `PRAGMA wal_checkpoint` answers one row; `busy` is 1 when another connection held it off. */
function checkpointBusy(rows: unknown): boolean {
  return (rows as { busy?: number }[])[0]?.busy === 1;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
