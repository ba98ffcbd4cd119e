// The credit ledger on PostgreSQL: the same rules as the SQLite ledger (../ledger.ts), decided in
// the database so that every replica sees every other replica's holds.
//
// Every reserve and end queued in one event-loop turn goes to the database as one batch
// (pg-batch-queue.ts): one call of `gateway_batch` (pg-batch-function.ts), i.e. one statement, one
// round trip and one commit. The batch ends first (claims, counters, usage rows), then decides each
// hold in queue order with one conditional UPDATE … RETURNING per level. Holds are decided under row
// locks taken in one global order, so two replicas' batches on the same organization wait for each
// other instead of deadlocking, and no hold is ever decided against counters another replica is
// changing. The one-call forms (reserve, settle, release) are batched the same way.
//
// Why conditional updates and not a SERIALIZABLE transaction with retry: measured with
// bench/store-pg-locking.ts (one organization, 16 concurrent holders), the serialisable variant
// spends most of its time in serialization failures and retries, since every hold of one
// organization reads and writes the same row; see that file's header for the figures.
//
// Files: this one is the `Ledger` (its calls, the stale sweep's judgement, reads, credits);
// pg-batch-queue.ts the batches; pg-batch-function.ts the function that runs them.
import type { Pool } from 'pg';
import type { Balance, ReserveInput, StoredUsage, UsageQuery } from '../ledger-api.js';
import { deadOwners, type LeaseRow } from '../lease.js';
import type { SettleBacklog } from '../settle-backlog.js';
import type { ServingLedger } from '../store-api.js';
import type { Reservation, UsageRecord } from '../types.js';
import { PgBatchQueue } from './pg-batch-queue.js';

const USAGE_SELECT = `request_id AS "requestId", key_id AS "keyId", org, project, environment, endpoint, model_requested AS "modelRequested",
  model_served AS "modelServed", provider, input_tokens AS "inputTokens", output_tokens AS "outputTokens", cache_read_tokens AS "cacheReadTokens",
  cache_write_tokens AS "cacheWriteTokens", reasoning_tokens AS "reasoningTokens", web_searches AS "webSearches", audio_seconds AS "audioSeconds",
  cost, call_name AS "callName", end_user_id AS "endUserId", status, error_code AS "errorCode", latency_ms AS "latencyMs", created_at AS "createdAt", routing`;

function assertUnits(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a non-negative integer of units, got ${value}`);
}

export class PgLedger implements ServingLedger {
  private readonly queue: PgBatchQueue;

  constructor(
    private readonly pool: Pool,
    readonly bootId: string,
    /** most batches in flight at once; the queue grows meanwhile, so a busy gateway sends larger ones */
    maxInFlight: number,
  ) {
    this.queue = new PgBatchQueue(pool, bootId, maxInFlight);
  }

  /** ends the store refused, retried with backoff */
  get backlog(): SettleBacklog {
    return this.queue.backlog;
  }

  reserveSoon(input: ReserveInput): Promise<Reservation> {
    assertUnits(input.amount, 'reservation amount');
    return this.queue.reserveSoon(input);
  }

  endSoon(reservation: Reservation, record: UsageRecord, charge: boolean): Promise<boolean> {
    if (charge) assertUnits(record.cost, 'cost');
    return this.queue.endSoon(reservation, charge ? record : { ...record, cost: 0 });
  }

  reserve(input: ReserveInput): Promise<Reservation> {
    return this.reserveSoon(input);
  }

  settle(reservation: Reservation, record: UsageRecord): Promise<boolean> {
    return this.endSoon(reservation, record, true);
  }

  release(reservation: Reservation, record?: UsageRecord): Promise<boolean> {
    if (record) return this.endSoon(reservation, record, false);
    return this.queue.endSoon(reservation, null);
  }

  /** Sends what is queued and waits until every batch in flight has answered. */
  flush(): Promise<void> {
    return this.queue.flush();
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
    return this.queue.sweep(dead, gone);
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
