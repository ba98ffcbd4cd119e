// The credit ledger on PostgreSQL: the same rules as the SQLite ledger (../ledger.ts), decided in
// the database so that every replica sees every other replica's holds.
//
// Every reserve and end queued in one event-loop turn goes to the database as one batch: one call
// of `gateway_batch` (pg-migrations.ts), i.e. one statement, one round trip and one commit. The
// batch ends first (claims, counters, usage rows), then decides each hold in queue order with one
// conditional UPDATE … RETURNING per level. Holds are decided under row locks taken in one global
// order, so two replicas' batches on the same organization wait for each other instead of
// deadlocking, and no hold is ever decided against counters another replica is changing.
//
// Why conditional updates and not a SERIALIZABLE transaction with retry: measured with
// bench/store-pg-locking.ts (one organization, 16 concurrent holders), the serialisable variant
// spends most of its time in serialization failures and retries, since every hold of one
// organization reads and writes the same row; see that file's header for the figures.
//
// A batch the database refuses for a reason that may pass (connection lost, shutting down) fails
// its holds with a retryable 503 and hands its ends to the settle backlog, as on SQLite.
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { GatewayError } from '../../errors.js';
import { errors } from '../../errors/index.js';
import type { Balance, ReserveInput, StoredUsage, UsageQuery } from '../ledger-api.js';
import { checkHold, levelsOf, type LevelsRow } from '../ledger-batch.js';
import { deadOwners, type LeaseRow } from '../lease.js';
import { scheduleBatch } from '../fault-switch.js';
import { SettleBacklog, type PendingEnd } from '../settle-backlog.js';
import type { ServingLedger } from '../store-api.js';
import { isStoreUnwritable } from '../store-errors.js';
import type { Reservation, UsageRecord } from '../types.js';

type Op =
  | { kind: 'end'; reservation: Reservation; record: UsageRecord | null; resolve: (ended: boolean) => void; reject: (err: unknown) => void }
  | { kind: 'reserve'; input: ReserveInput; id: string; resolve: (r: Reservation) => void; reject: (err: unknown) => void };

interface BatchAnswer {
  ended: string[];
  swept: number;
  /** per hold, in order: null granted, else the counters it was refused against */
  holds: (LevelsRow | null)[];
}

interface HoldArg {
  id: string;
  request_id: string;
  key_id: string;
  org: string;
  project: string | null;
  environment: string | null;
  amount: number;
}

/** A usage record under its column names, with the reservation it ends. */
function usageArg(reservation: string, r: UsageRecord): Record<string, unknown> {
  return {
    reservation,
    request_id: r.requestId,
    key_id: r.keyId,
    org: r.org,
    project: r.project,
    environment: r.environment,
    endpoint: r.endpoint,
    model_requested: r.modelRequested,
    model_served: r.modelServed,
    provider: r.provider,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    cache_read_tokens: r.cacheReadTokens,
    cache_write_tokens: r.cacheWriteTokens,
    reasoning_tokens: r.reasoningTokens,
    web_searches: r.webSearches,
    audio_seconds: r.audioSeconds,
    cost: r.cost,
    call_name: r.callName,
    end_user_id: r.endUserId,
    status: r.status,
    error_code: r.errorCode,
    latency_ms: r.latencyMs,
    created_at: Date.now(),
    routing: r.routing ?? null,
  };
}

const USAGE_SELECT = `request_id AS "requestId", key_id AS "keyId", org, project, environment, endpoint, model_requested AS "modelRequested",
  model_served AS "modelServed", provider, input_tokens AS "inputTokens", output_tokens AS "outputTokens", cache_read_tokens AS "cacheReadTokens",
  cache_write_tokens AS "cacheWriteTokens", reasoning_tokens AS "reasoningTokens", web_searches AS "webSearches", audio_seconds AS "audioSeconds",
  cost, call_name AS "callName", end_user_id AS "endUserId", status, error_code AS "errorCode", latency_ms AS "latencyMs", created_at AS "createdAt", routing`;

/** deadlock detected, serialization failure */
const RETRYABLE = new Set(['40P01', '40001']);
const RETRIES = 5;

function assertUnits(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a non-negative integer of units, got ${value}`);
}

export class PgLedger implements ServingLedger {
  private queue: Op[] = [];
  private scheduled = false;
  /** batches sent and not answered yet */
  private readonly inFlight = new Set<Promise<void>>();
  readonly backlog: SettleBacklog;

  constructor(
    private readonly pool: Pool,
    readonly bootId: string,
    /** most batches in flight at once; the queue grows meanwhile, so a busy gateway sends larger ones */
    private readonly maxInFlight: number,
  ) {
    this.backlog = new SettleBacklog(async (ends: readonly PendingEnd[]) => {
      await this.call(ends.map((e): Op => ({ kind: 'end', reservation: e.reservation, record: e.record, resolve: () => undefined, reject: () => undefined })), [], []);
    });
  }

  private enqueue(op: Op): void {
    this.queue.push(op);
    if (!this.scheduled) {
      this.scheduled = true;
      scheduleBatch(() => {
        this.scheduled = false;
        this.send();
      });
    }
  }

  /** Sends what is queued as one batch, unless enough are in flight (then it goes when one answers). */
  private send(): void {
    if (this.queue.length === 0 || this.inFlight.size >= this.maxInFlight) return;
    const batch = this.queue;
    this.queue = [];
    const running = this.run(batch).finally(() => {
      this.inFlight.delete(running);
      this.send();
    });
    this.inFlight.add(running);
  }

  /** One call of gateway_batch: ends (and sweeps of dead owners), then holds; returns the answer. */
  private async call(ops: readonly Op[], sweep: readonly string[], gone: readonly string[]): Promise<BatchAnswer> {
    const ends: { id: string; cost: number }[] = [];
    const usage: Record<string, unknown>[] = [];
    const holds: HoldArg[] = [];
    for (const op of ops) {
      if (op.kind === 'end') {
        ends.push({ id: op.reservation.id, cost: op.record?.cost ?? 0 });
        if (op.record) usage.push(usageArg(op.reservation.id, op.record));
      } else {
        const { key, amount, requestId } = op.input;
        const project = key.project;
        holds.push({ id: op.id, request_id: requestId, key_id: key.id, org: key.org, project, environment: project === null ? null : key.environment, amount });
      }
    }
    const arg = JSON.stringify({ owner: this.bootId, ends, usage, holds, sweep, gone });
    for (let attempt = 1; ; attempt++) {
      try {
        const { rows } = await this.pool.query<{ a: BatchAnswer }>('SELECT gateway_batch($1::jsonb) AS a', [arg]);
        return rows[0]!.a;
      } catch (err) {
        // one statement: a deadlock victim changed nothing, so it is sent again (the ordered locks
        // make this rare: a settle and a sweep claiming the same reservation)
        if (attempt >= RETRIES || !RETRYABLE.has(String((err as { code?: unknown }).code))) throw err;
      }
    }
  }

  private async run(batch: Op[]): Promise<void> {
    // a reservation ended twice in one batch: the first takes effect, the second finds nothing (as on SQLite)
    const seen = new Set<string>();
    const ops: Op[] = [];
    for (const op of batch) {
      if (op.kind === 'end' && seen.has(op.reservation.id)) op.resolve(false);
      else {
        if (op.kind === 'end') seen.add(op.reservation.id);
        ops.push(op);
      }
    }
    let answer: BatchAnswer;
    try {
      answer = await this.call(ops, [], []);
    } catch (err) {
      this.refused(ops, err);
      return;
    }
    const ended = new Set(answer.ended);
    let h = 0;
    for (const op of ops) {
      if (op.kind === 'end') {
        op.resolve(ended.has(op.reservation.id));
        continue;
      }
      const refusedBy = answer.holds[h++];
      if (refusedBy === null || refusedBy === undefined) {
        op.resolve({ id: op.id, requestId: op.input.requestId, keyId: op.input.key.id, amount: op.input.amount });
        continue;
      }
      op.reject(refusal(op.input, refusedBy));
    }
  }

  private refused(ops: readonly Op[], err: unknown): void {
    if (!isStoreUnwritable(err)) {
      for (const op of ops) op.reject(err);
      return;
    }
    const ends: PendingEnd[] = [];
    for (const op of ops) if (op.kind === 'end' && op.record) ends.push({ reservation: op.reservation, record: op.record });
    if (ends.length > 0) this.backlog.add(ends, err);
    const answer = errors.storeUnwritable(this.backlog.retryAfterSeconds(), err);
    for (const op of ops) op.reject(op.kind === 'end' ? errors.settleDeferred(err) : answer);
  }

  reserveSoon(input: ReserveInput): Promise<Reservation> {
    assertUnits(input.amount, 'reservation amount');
    if (this.backlog.size > 0) return Promise.reject(errors.storeUnwritable(this.backlog.retryAfterSeconds()));
    return new Promise((resolve, reject) => this.enqueue({ kind: 'reserve', input, id: `res_${randomUUID()}`, resolve, reject }));
  }

  endSoon(reservation: Reservation, record: UsageRecord, charge: boolean): Promise<boolean> {
    if (charge) assertUnits(record.cost, 'cost');
    return new Promise((resolve, reject) => this.enqueue({ kind: 'end', reservation, record: charge ? record : { ...record, cost: 0 }, resolve, reject }));
  }

  reserve(input: ReserveInput): Promise<Reservation> {
    return this.reserveSoon(input);
  }

  settle(reservation: Reservation, record: UsageRecord): Promise<boolean> {
    return this.endSoon(reservation, record, true);
  }

  release(reservation: Reservation, record?: UsageRecord): Promise<boolean> {
    if (record) return this.endSoon(reservation, record, false);
    return new Promise((resolve, reject) => this.enqueue({ kind: 'end', reservation, record: null, resolve, reject }));
  }

  /** Sends what is queued and waits until every batch in flight has answered. */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      this.send();
      await Promise.allSettled([...this.inFlight]);
    }
  }

  writable(): boolean {
    return this.backlog.size === 0;
  }

  async releaseStale(): Promise<number> {
    const owners = await this.pool.query<{ boot_id: string }>('SELECT DISTINCT boot_id FROM reservations WHERE boot_id <> $1', [this.bootId]);
    if (owners.rows.length === 0) return 0;
    const leases = await this.pool.query<LeaseRow & { now: number }>(
      'SELECT owner, machine, pid, expires_at, (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT AS now FROM leases',
    );
    const now = leases.rows[0]?.now ?? (await this.pool.query<{ now: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT AS now')).rows[0]!.now;
    const { dead, gone } = deadOwners(owners.rows.map((r) => r.boot_id), leases.rows, now, this.bootId);
    if (dead.length === 0) return 0;
    // gateway_batch checks the expiry again under its locks: a lease renewed meanwhile is kept
    return (await this.call([], dead, gone)).swept;
  }

  async balanceOf(org: string): Promise<Balance | null> {
    const { rows } = await this.pool.query<{ balance: number; reserved: number; spent: number; spend_cap: number | null }>(
      'SELECT balance, reserved, spent, spend_cap FROM orgs WHERE id = $1',
      [org],
    );
    const row = rows[0];
    return row ? { balance: row.balance, reserved: row.reserved, spent: row.spent, spendCap: row.spend_cap } : null;
  }

  async orgIds(): Promise<string[]> {
    return (await this.pool.query<{ id: string }>('SELECT id FROM orgs ORDER BY id')).rows.map((r) => r.id);
  }

  async usageFor(query: UsageQuery): Promise<StoredUsage[]> {
    const { rows } = await this.pool.query<StoredUsage>(
      `SELECT ${USAGE_SELECT} FROM usage WHERE ($1::TEXT IS NULL OR org = $1) AND ($2::TEXT IS NULL OR key_id = $2)
       ORDER BY created_at DESC, seq DESC LIMIT $3`,
      [query.org ?? null, query.keyId ?? null, query.limit],
    );
    return rows;
  }

  async addCredits(org: string, units: number, reason: string): Promise<number> {
    if (!Number.isSafeInteger(units) || units === 0) throw new TypeError(`credits must be a non-zero integer of units, got ${units}`);
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ balance: number }>('UPDATE orgs SET balance = balance + $1 WHERE id = $2 RETURNING balance', [units, org]);
      if (rows.length === 0) throw new Error(`unknown organization "${org}"`);
      await client.query('INSERT INTO credit_events (org, amount, reason, created_at) VALUES ($1, $2, $3, $4)', [org, units, reason, Date.now()]);
      await client.query('COMMIT');
      return rows[0]!.balance;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async openReservations(): Promise<number> {
    return (await this.pool.query<{ n: number }>('SELECT count(*)::BIGINT AS n FROM reservations')).rows[0]!.n;
  }
}

/** The 402 a refused hold answers, from the counters it was refused against (as `checkHold` words it). */
function refusal(input: ReserveInput, row: LevelsRow): GatewayError {
  const { key, amount } = input;
  const project = key.project;
  const hold = { key: key.id, org: key.org, project, environment: project === null ? null : key.environment, reserve: amount, cost: 0 };
  try {
    checkHold(hold, levelsOf('balance' in row ? row : undefined));
  } catch (err) {
    if (GatewayError.is(err)) return err;
    throw err;
  }
  // the database refused what the same rules here would grant: counters moved in between; say so plainly
  return errors.creditsInsufficient(0, 0, 0, amount);
}
