// The SQL of the SQLite credit ledger, prepared once per connection: every statement the ledger's
// writes (ledger-writes.ts), its batches (ledger-queue.ts) and its reads (ledger.ts) run.
import type Database from 'better-sqlite3';
import type { StoredUsage } from './ledger-api.js';
import type { BatchStatements } from './ledger-batch.js';
import { KeyOrgPairs } from './key-org-pairs.js';
import type { LeaseRow } from './lease.js';
import type { UsageRecord } from './types.js';

/** A reservation row as its claim (the DELETE … RETURNING) hands it back. */
export interface ReservationRow {
  id: string;
  key_id: string;
  org: string;
  project: string | null;
  environment: string | null;
  amount: number;
}

/** usage columns under their UsageRecord names (snake_case → camelCase) */
const USAGE_COLUMNS = [
  'request_id', 'key_id', 'org', 'project', 'environment', 'endpoint', 'model_requested', 'model_served', 'provider',
  'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'web_searches',
  'audio_seconds', 'cost', 'call_name', 'end_user_id', 'status', 'error_code', 'latency_ms', 'created_at', 'routing',
]
  .map((c) => `${c} AS ${c.replace(/_([a-z])/g, (_m, l: string) => l.toUpperCase())}`)
  .join(', ');

export class LedgerStatements {
  /**
   * The counters of every level of a hold, in one read, as an array in LevelsRow's order (`raw`):
   * better-sqlite3 builds a row object through V8's API, a named property at a time, which cost
   * more than the read (about 9,000 instructions for these 13 columns; `levelsRow` makes it in JS).
   */
  readonly levels: BatchStatements['levels'];
  /** the bumps of one level's counters (positional: `bump` in ledger-batch.ts binds them from a Delta) */
  readonly bumpOrg: BatchStatements['bumpOrg'];
  readonly bumpKey: BatchStatements['bumpKey'];
  readonly bumpProject: BatchStatements['bumpProject'];
  readonly bumpEnv: BatchStatements['bumpEnv'];
  /** a hold's row at its slot (reservation-slots.ts) */
  readonly insertReservation: Database.Statement<[number, string, string, string, string, string | null, string | null, number, string, number]>;
  /** deleting the row is the claim: whichever end deletes it takes effect (this one reads the row's levels back; by id, it scans the rows in flight) */
  readonly claimReservation: Database.Statement<[string], ReservationRow>;
  /**
   * The claim of a hold whose levels and slot the caller knows (the `Reservation` this ledger handed
   * out): `changes` says whether it took effect (a slot reused since holds another id). Without
   * RETURNING it costs 1.0 µs instead of 2.6 (the returned row goes through a temporary table and an
   * object).
   */
  readonly deleteHold: Database.Statement<[number, string]>;
  /** the same claim by id alone (a hold of another process, or of another store on this file): a scan of the rows in flight */
  readonly deleteReservation: Database.Statement<[string]>;
  readonly ownerReservations: Database.Statement<[string], ReservationRow>;
  readonly reservationOwners: Database.Statement<[string], { boot_id: string }>;
  readonly selectLeases: Database.Statement<[], LeaseRow>;
  readonly deleteLease: Database.Statement<[string]>;
  /**
   * Positional parameters (binding 24 named ones from an object costs more than the insert). Each
   * insert writes the table, its request_id key and one index, usage_org_time (org, time, key), which
   * the admin reads by organization, key or time range search through key_orgs (migration 6; the
   * row's pair is added by `pairs`, key-org-pairs.ts). Without any index those reads, which SQLite
   * runs on the gateway's event loop, would scan the whole table.
   */
  private readonly insertUsage: Database.Statement<unknown[]>;
  readonly selectBalance: Database.Statement<[string], { balance: number; reserved: number; spent: number; spend_cap: number | null }>;
  readonly selectOrgIds: Database.Statement<[], { id: string }>;
  readonly selectUsage: Database.Statement<[{ org: string | null; key: string | null; limit: number }], StoredUsage>;
  readonly creditOrg: Database.Statement<[number, string]>;
  readonly insertCreditEvent: Database.Statement<[string, number, string, number]>;
  readonly countReservations: Database.Statement<[], { n: number }>;
  /** the (key, organization) pairs of usage rows, in key_orgs (every transaction writing usage rows begins and commits it) */
  readonly pairs: KeyOrgPairs;

  constructor(db: Database.Database) {
    this.levels = db.prepare(`SELECT o.balance, o.reserved AS o_reserved, o.spent AS o_spent, o.spend_cap AS o_cap,
        k.reserved AS k_reserved, k.spent AS k_spent, k.spend_cap AS k_cap,
        p.reserved AS p_reserved, p.spent AS p_spent, p.spend_cap AS p_cap,
        e.reserved AS e_reserved, e.spent AS e_spent, e.spend_cap AS e_cap
      FROM orgs o
      LEFT JOIN keys k ON k.id = ?
      LEFT JOIN projects p ON p.org = o.id AND p.id = ?
      LEFT JOIN environments e ON e.org = o.id AND e.project = ? AND e.id = ?
      WHERE o.id = ?`).raw(true) as unknown as BatchStatements['levels'];
    const bump = 'reserved = reserved + ?, spent = spent + ?';
    this.bumpOrg = db.prepare(`UPDATE orgs SET ${bump}, balance = balance - ? WHERE id = ?`);
    this.bumpKey = db.prepare(`UPDATE keys SET ${bump} WHERE id = ?`);
    this.bumpProject = db.prepare(`UPDATE projects SET ${bump} WHERE org = ? AND id = ?`);
    this.bumpEnv = db.prepare(`UPDATE environments SET ${bump} WHERE org = ? AND project = ? AND id = ?`);
    this.insertReservation = db.prepare(`INSERT INTO reservations (slot, id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.claimReservation = db.prepare('DELETE FROM reservations WHERE id = ? RETURNING id, key_id, org, project, environment, amount');
    this.deleteHold = db.prepare('DELETE FROM reservations WHERE slot = ? AND id = ?');
    this.deleteReservation = db.prepare('DELETE FROM reservations WHERE id = ?');
    this.ownerReservations = db.prepare('DELETE FROM reservations WHERE boot_id = ? RETURNING id, key_id, org, project, environment, amount');
    this.reservationOwners = db.prepare('SELECT DISTINCT boot_id FROM reservations WHERE boot_id <> ?');
    this.selectLeases = db.prepare('SELECT owner, machine, pid, expires_at FROM leases');
    this.deleteLease = db.prepare('DELETE FROM leases WHERE owner = ?');
    this.insertUsage = db.prepare(`INSERT INTO usage (request_id, key_id, org, project, environment, endpoint, model_requested, model_served, provider,
        input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, web_searches, audio_seconds, cost,
        call_name, end_user_id, status, error_code, latency_ms, created_at, routing)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(request_id) DO NOTHING`);
    this.selectBalance = db.prepare('SELECT balance, reserved, spent, spend_cap FROM orgs WHERE id = ?');
    this.selectOrgIds = db.prepare('SELECT id FROM orgs ORDER BY id');
    // the organizations to search (usage_org_time) named by key_orgs (migration 6)
    this.selectUsage = db.prepare(`SELECT ${USAGE_COLUMNS} FROM usage
      WHERE org IN (SELECT org FROM key_orgs WHERE (@org IS NULL OR org = @org) AND (@key IS NULL OR key_id = @key))
        AND (@org IS NULL OR org = @org) AND (@key IS NULL OR key_id = @key)
      ORDER BY created_at DESC, rowid DESC LIMIT @limit`);
    this.creditOrg = db.prepare('UPDATE orgs SET balance = balance + ? WHERE id = ?');
    this.insertCreditEvent = db.prepare('INSERT INTO credit_events (org, amount, reason, created_at) VALUES (?, ?, ?, ?)');
    this.countReservations = db.prepare('SELECT COUNT(*) AS n FROM reservations');
    this.pairs = new KeyOrgPairs(db);
  }

  /**
   * The usage row of a request (its first record is kept: a duplicate request id changes nothing),
   * and its (key, organization) pair in key_orgs.
   */
  insertUsageRecord(r: UsageRecord): void {
    this.pairs.note(r.keyId, r.org);
    this.insertUsage.run(r.requestId, r.keyId, r.org, r.project, r.environment, r.endpoint, r.modelRequested, r.modelServed, r.provider,
      r.inputTokens, r.outputTokens, r.cacheReadTokens, r.cacheWriteTokens, r.reasoningTokens, r.webSearches, r.audioSeconds, r.cost,
      r.callName, r.endUserId, r.status, r.errorCode, r.latencyMs, Date.now(), r.routing ?? null);
  }
}
