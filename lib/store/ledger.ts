// The credit ledger on SQLite. Every change is one `BEGIN IMMEDIATE` transaction (better-sqlite3's
// `.immediate()`): atomic inside this process (synchronous calls never interleave) and across
// processes sharing the database file (the write lock is taken before anything is read).
//
// Amounts are integer units (1e-9 USD). Four levels carry `spent` and `reserved` counters: the
// organization (which also holds the `balance`), and, when the key names them, its project and
// environment, and the key itself. A reservation row remembers the levels it was taken at, so it is
// always ended at the same rows even if the key was moved since.
//
// - reserve: refused when the organization's available balance (balance − reserved) does not cover
//   the amount or is not positive (the spec's "balance zero or negative": 402 even for a free
//   request), or when any level's cap would be passed: spent + reserved + amount > cap.
// - settle/release: deleting the reservation row is the claim: whichever call deletes it takes
//   effect, every later call (settle, release, stale release) finds nothing and does nothing.
// - The charge is the actual cost even above the reservation (honest billing; a reservation is an
//   upper bound, so an overrun means the estimate was wrong, and the balance may then go below zero
//   by that overrun only).
// - A usage row is keyed by request id: the first record of a request is kept (a duplicate id never
//   fails a settle, and the charge is applied either way).
// - releaseStale releases the reservations of owners that are not alive (lease.ts): no lease, an
//   expired one, or a dead pid on this machine; never those of a process that renews its lease, so
//   several live processes can share one file (and restart one at a time).
// - reserveSoon/endSoon: the operations queued in one event-loop turn run in one transaction, in
//   queue order, each decided as `reserve` would be against the counters the earlier ones left. The
//   batch coalesces the counter work (`CounterBatch`, ledger-batch.ts): a level's counters are read
//   at most once per batch and written once, at its end; the reservation and usage rows are still
//   written per operation. In a batch of N requests (a hold and an end each) of one key, that is
//   2N inserts + N claims + at most one levels read and one bump per level, instead of N reads,
//   2N inserts, N claims and 4N–8N bumps.
// - A batch the store refuses (store-errors.ts) fails its holds with a retryable 503 and hands its
//   ends to settle-backlog.ts; while ends wait there, new holds are refused before provider work.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { GatewayError } from '../errors.js';
import type { Balance, Ledger, ReserveInput, StoredUsage, UsageQuery } from './ledger-api.js';
import { checkHold, CounterBatch, levelsOf, type BatchStatements, type Delta, type LevelsRow } from './ledger-batch.js';
import { errors } from '../errors/index.js';
import { SettleBacklog, type PendingEnd } from './settle-backlog.js';
import { isStoreUnwritable } from './store-errors.js';
import { scheduleBatch, type StoreFaultSwitch } from './fault-switch.js';
import type { Reservation, UsageRecord } from './types.js';
import { deadOwners, type LeaseRow } from './lease.js';

export type { Balance, Ledger, ReserveInput, StoredUsage, UsageQuery } from './ledger-api.js';

interface ReservationRow {
  id: string;
  key_id: string;
  org: string;
  project: string | null;
  environment: string | null;
  amount: number;
}

/** An operation waiting for the batch (one transaction) that runs it. */
type Op =
  | { kind: 'end'; id: string; reservation: Reservation; record: UsageRecord; resolve: (ended: boolean) => void; reject: (err: unknown) => void }
  | { kind: 'reserve'; input: ReserveInput; resolve: (r: Reservation) => void; reject: (err: unknown) => void };

/** usage columns under their UsageRecord names (snake_case → camelCase) */
const USAGE_COLUMNS = [
  'request_id', 'key_id', 'org', 'project', 'environment', 'endpoint', 'model_requested', 'model_served', 'provider',
  'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'web_searches',
  'audio_seconds', 'cost', 'call_name', 'end_user_id', 'status', 'error_code', 'latency_ms', 'created_at', 'routing',
]
  .map((c) => `${c} AS ${c.replace(/_([a-z])/g, (_m, l: string) => l.toUpperCase())}`)
  .join(', ');

function assertUnits(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a non-negative integer of units, got ${value}`);
}

export class SqliteLedger implements Ledger {
  private readonly levels: Database.Statement<[Delta], LevelsRow>;
  private readonly bumpOrg: Database.Statement<[Delta]>;
  private readonly bumpKey: Database.Statement<[Delta]>;
  private readonly bumpProject: Database.Statement<[Delta]>;
  private readonly bumpEnv: Database.Statement<[Delta]>;
  private readonly insertReservation: Database.Statement<[string, string, string, string, string | null, string | null, number, string, number]>;
  private readonly claimReservation: Database.Statement<[string], ReservationRow>;
  private readonly ownerReservations: Database.Statement<[string], ReservationRow>;
  private readonly reservationOwners: Database.Statement<[string], { boot_id: string }>;
  private readonly selectLeases: Database.Statement<[], LeaseRow>;
  private readonly deleteLease: Database.Statement<[string]>;
  /** positional parameters (binding 23 named ones from an object costs more than the insert) */
  private readonly insertUsage: Database.Statement<unknown[]>;
  private readonly selectBalance: Database.Statement<[string], { balance: number; reserved: number; spent: number; spend_cap: number | null }>;
  private readonly selectOrgIds: Database.Statement<[], { id: string }>;
  private readonly selectUsage: Database.Statement<[{ org: string | null; key: string | null; limit: number }], StoredUsage>;
  private readonly creditOrg: Database.Statement<[number, string]>;
  private readonly insertCreditEvent: Database.Statement<[string, number, string, number]>;
  private readonly countReservations: Database.Statement<[], { n: number }>;
  private readonly reserveTx: Database.Transaction<(input: ReserveInput) => Reservation>;
  private readonly endTx: Database.Transaction<(id: string, record: UsageRecord | null) => boolean>;
  /** runs a batch; returns, per operation, what settles its promise once the transaction committed */
  private readonly batchTx: Database.Transaction<(batch: readonly Op[]) => (() => void)[]>;
  private queue: Op[] = [];
  /** ends the store refused, retried with backoff */
  readonly backlog: SettleBacklog;
  /** GATEWAY_STORE_FAULT_FILE (fault-switch.ts), applied before each batch; null normally */
  faults: StoreFaultSwitch | null = null;
  private readonly staleTx: Database.Transaction<() => number>;
  private readonly creditTx: Database.Transaction<(org: string, units: number, reason: string) => number>;

  constructor(
    readonly db: Database.Database,
    readonly bootId: string,
  ) {
    this.levels = db.prepare(`SELECT o.balance, o.reserved AS o_reserved, o.spent AS o_spent, o.spend_cap AS o_cap,
        k.reserved AS k_reserved, k.spent AS k_spent, k.spend_cap AS k_cap,
        p.reserved AS p_reserved, p.spent AS p_spent, p.spend_cap AS p_cap,
        e.reserved AS e_reserved, e.spent AS e_spent, e.spend_cap AS e_cap
      FROM orgs o
      LEFT JOIN keys k ON k.id = @key
      LEFT JOIN projects p ON p.org = o.id AND p.id = @project
      LEFT JOIN environments e ON e.org = o.id AND e.project = @project AND e.id = @environment
      WHERE o.id = @org`);
    const bump = 'reserved = reserved + @reserve, spent = spent + @cost';
    this.bumpOrg = db.prepare(`UPDATE orgs SET ${bump}, balance = balance - @cost WHERE id = @org`);
    this.bumpKey = db.prepare(`UPDATE keys SET ${bump} WHERE id = @key`);
    this.bumpProject = db.prepare(`UPDATE projects SET ${bump} WHERE org = @org AND id = @project`);
    this.bumpEnv = db.prepare(`UPDATE environments SET ${bump} WHERE org = @org AND project = @project AND id = @environment`);
    this.insertReservation = db.prepare(`INSERT INTO reservations (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.claimReservation = db.prepare('DELETE FROM reservations WHERE id = ? RETURNING id, key_id, org, project, environment, amount');
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
    this.selectUsage = db.prepare(`SELECT ${USAGE_COLUMNS} FROM usage WHERE (@org IS NULL OR org = @org) AND (@key IS NULL OR key_id = @key)
      ORDER BY created_at DESC, rowid DESC LIMIT @limit`);
    this.creditOrg = db.prepare('UPDATE orgs SET balance = balance + ? WHERE id = ?');
    this.insertCreditEvent = db.prepare('INSERT INTO credit_events (org, amount, reason, created_at) VALUES (?, ?, ?, ?)');
    this.countReservations = db.prepare('SELECT COUNT(*) AS n FROM reservations');

    this.reserveTx = db.transaction((input: ReserveInput) => this.reserveInTx(input));
    this.endTx = db.transaction((id: string, record: UsageRecord | null) => this.endInTx(id, record));
    const batchStatements: BatchStatements = { levels: this.levels, bumpOrg: this.bumpOrg, bumpKey: this.bumpKey, bumpProject: this.bumpProject, bumpEnv: this.bumpEnv };
    this.batchTx = db.transaction((batch: readonly Op[]) => {
      const counters = new CounterBatch(batchStatements); // this batch's only: never reused
      const settle = batch.map((op) => this.runOp(op, counters));
      counters.write();
      return settle;
    });
    const ignore = (): void => undefined;
    this.backlog = new SettleBacklog((ends: readonly PendingEnd[]) => {
      this.faults?.apply();
      this.batchTx.immediate(ends.map((e): Op => ({ kind: 'end', id: e.reservation.id, reservation: e.reservation, record: e.record, resolve: ignore, reject: ignore })));
    });
    // one write transaction: a lease renewed meanwhile waits for it, so what was judged dead stays so
    this.staleTx = db.transaction(() => {
      const owners = this.reservationOwners.all(this.bootId).map((r) => r.boot_id);
      if (owners.length === 0) return 0;
      let released = 0;
      for (const owner of deadOwners(owners, this.selectLeases.all(), Date.now(), this.bootId).dead) {
        for (const r of this.ownerReservations.all(owner)) {
          this.apply({ key: r.key_id, org: r.org, project: r.project, environment: r.environment, reserve: -r.amount, cost: 0 });
          released++;
        }
        this.deleteLease.run(owner);
      }
      return released;
    });
    this.creditTx = db.transaction((org: string, units: number, reason: string) => {
      if (this.creditOrg.run(units, org).changes === 0) throw new Error(`unknown organization "${org}"`);
      this.insertCreditEvent.run(org, units, reason, Date.now());
      return this.selectBalance.get(org)!.balance;
    });
  }

  /** Ends a reservation; in a batch, its counter change is left to the batch's `write()`. */
  private endInTx(id: string, record: UsageRecord | null, batch?: CounterBatch): boolean {
    const row = this.claimReservation.get(id);
    if (row === undefined) return false;
    const d: Delta = { key: row.key_id, org: row.org, project: row.project, environment: row.environment, reserve: -row.amount, cost: record?.cost ?? 0 };
    if (batch) batch.add(d);
    else this.apply(d);
    if (record) {
      const r = record;
      this.insertUsage.run(r.requestId, r.keyId, r.org, r.project, r.environment, r.endpoint, r.modelRequested, r.modelServed, r.provider,
        r.inputTokens, r.outputTokens, r.cacheReadTokens, r.cacheWriteTokens, r.reasoningTokens, r.webSearches, r.audioSeconds, r.cost,
        r.callName, r.endUserId, r.status, r.errorCode, r.latencyMs, Date.now(), r.routing ?? null);
    }
    return true;
  }

  /** One operation inside the batch transaction. A refused hold counted nothing, so the batch goes on. */
  private runOp(op: Op, counters: CounterBatch): () => void {
    if (op.kind === 'end') {
      const ended = this.endInTx(op.id, op.record, counters);
      return () => op.resolve(ended);
    }
    try {
      const reservation = this.reserveInTx(op.input, counters);
      return () => op.resolve(reservation);
    } catch (err) {
      if (GatewayError.is(err)) return () => op.reject(err);
      throw err; // a store failure: the whole batch rolls back
    }
  }

  private enqueue(op: Op): void {
    this.queue.push(op);
    if (this.queue.length === 1) scheduleBatch(() => this.flush());
  }

  reserveSoon(input: ReserveInput): Promise<Reservation> {
    assertUnits(input.amount, 'reservation amount');
    if (this.backlog.size > 0) return Promise.reject(errors.storeUnwritable(this.backlog.retryAfterSeconds()));
    return new Promise((resolve, reject) => this.enqueue({ kind: 'reserve', input, resolve, reject }));
  }

  endSoon(reservation: Reservation, record: UsageRecord, charge: boolean): Promise<boolean> {
    if (charge) assertUnits(record.cost, 'cost');
    return new Promise((resolve, reject) => this.enqueue({ kind: 'end', id: reservation.id, reservation, record: charge ? record : { ...record, cost: 0 }, resolve, reject }));
  }

  flush(): void {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let settle: (() => void)[];
    try {
      this.faults?.apply();
      settle = this.batchTx.immediate(batch);
    } catch (err) {
      if (!isStoreUnwritable(err)) {
        for (const op of batch) op.reject(err);
        return;
      }
      // the store refused the write: the ends wait in the backlog, the holds were never taken
      const ends: PendingEnd[] = [];
      for (const op of batch) if (op.kind === 'end') ends.push({ reservation: op.reservation, record: op.record });
      if (ends.length > 0) this.backlog.add(ends, err);
      const refused = errors.storeUnwritable(this.backlog.retryAfterSeconds(), err);
      for (const op of batch) op.reject(op.kind === 'end' ? errors.settleDeferred(err) : refused);
      return;
    }
    for (const done of settle) done();
  }

  /** Whether the ledger takes writes now (no settle waiting for the store): what /readyz can report. */
  writable(): boolean {
    return this.backlog.size === 0;
  }

  private apply(d: Delta): void {
    this.bumpOrg.run(d);
    this.bumpKey.run(d);
    if (d.project !== null) {
      this.bumpProject.run(d);
      if (d.environment !== null) this.bumpEnv.run(d);
    }
  }

  /** Holds `amount` or throws the 402; in a batch, decided and counted by the batch's counters. */
  private reserveInTx({ requestId, key, amount }: ReserveInput, batch?: CounterBatch): Reservation {
    const project = key.project;
    const environment = project === null ? null : key.environment;
    const hold: Delta = { key: key.id, org: key.org, project, environment, reserve: amount, cost: 0 };
    if (batch) batch.hold(hold);
    else {
      checkHold(hold, levelsOf(this.levels.get(hold)));
      this.apply(hold);
    }
    const id = `res_${randomUUID()}`;
    this.insertReservation.run(id, requestId, key.id, key.org, project, environment, amount, this.bootId, Date.now());
    return { id, requestId, keyId: key.id, amount };
  }

  reserve(input: ReserveInput): Reservation {
    assertUnits(input.amount, 'reservation amount');
    return this.reserveTx.immediate(input);
  }

  settle(reservation: Reservation, record: UsageRecord): boolean {
    assertUnits(record.cost, 'cost');
    return this.endTx.immediate(reservation.id, record);
  }

  release(reservation: Reservation, record?: UsageRecord): boolean {
    return this.endTx.immediate(reservation.id, record ? { ...record, cost: 0 } : null);
  }

  releaseStale(): number {
    return this.staleTx.immediate();
  }

  balanceOf(org: string): Balance | null {
    const row = this.selectBalance.get(org);
    return row ? { balance: row.balance, reserved: row.reserved, spent: row.spent, spendCap: row.spend_cap } : null;
  }

  orgIds(): string[] {
    return this.selectOrgIds.all().map((r) => r.id);
  }

  usageFor(query: UsageQuery): StoredUsage[] {
    return this.selectUsage.all({ org: query.org ?? null, key: query.keyId ?? null, limit: query.limit });
  }

  addCredits(org: string, units: number, reason: string): number {
    if (!Number.isSafeInteger(units) || units === 0) throw new TypeError(`credits must be a non-zero integer of units, got ${units}`);
    return this.creditTx.immediate(org, units, reason);
  }

  openReservations(): number {
    return this.countReservations.get()!.n;
  }
}
