// The batches of the PostgreSQL credit ledger: every reserve and end queued in one event-loop turn
// goes to the database as one call of `gateway_batch` (pg-batch-function.ts), i.e. one statement,
// one round trip and one commit; at most `maxInFlight` batches are in flight, and the queue grows
// meanwhile, so a busy gateway sends larger ones. The answer says which ends took effect and, per
// hold in order, whether it was granted or the counters it was refused against (for the 402).
//
// A batch the database refuses for a reason that may pass (connection lost, shutting down) fails
// its holds with a retryable 503 and hands its ends to the settle backlog, as on SQLite.
import { timeOrderedId } from '../../ids.js';
import type { Pool } from 'pg';
import { GatewayError } from '../../errors.js';
import { errors } from '../../errors/index.js';
import type { ReserveInput } from '../ledger-api.js';
import { checkHold, levelsOf, type LevelsRow } from '../ledger-batch.js';
import { scheduleBatch } from '../fault-switch.js';
import { SettleBacklog, type PendingEnd } from '../settle-backlog.js';
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

/** deadlock detected, serialization failure */
const RETRYABLE = new Set(['40P01', '40001']);
const RETRIES = 5;

export class PgBatchQueue {
  private queue: Op[] = [];
  private scheduled = false;
  /** batches sent and not answered yet */
  private readonly inFlight = new Set<Promise<void>>();
  /** ends the store refused, retried with backoff */
  readonly backlog: SettleBacklog;

  constructor(
    private readonly pool: Pool,
    private readonly bootId: string,
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

  /** `amount` is checked by the caller. */
  reserveSoon(input: ReserveInput): Promise<Reservation> {
    if (this.backlog.size > 0) return Promise.reject(errors.storeUnwritable(this.backlog.retryAfterSeconds()));
    return new Promise((resolve, reject) => this.enqueue({ kind: 'reserve', input, id: timeOrderedId('res_'), resolve, reject }));
  }

  /** `record` as it is to be written (cost 0 for a release; null: a release without a record). */
  endSoon(reservation: Reservation, record: UsageRecord | null): Promise<boolean> {
    return new Promise((resolve, reject) => this.enqueue({ kind: 'end', reservation, record, resolve, reject }));
  }

  /** Sends what is queued and waits until every batch in flight has answered. */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      this.send();
      await Promise.allSettled([...this.inFlight]);
    }
  }

  /**
   * Releases the holds of `dead` owners and removes the leases of those `gone` (gateway_batch checks
   * each expiry again under its locks: a lease renewed meanwhile is kept); returns how many.
   */
  async sweep(dead: readonly string[], gone: readonly string[]): Promise<number> {
    return (await this.call([], dead, gone)).swept;
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
