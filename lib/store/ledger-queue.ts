// The batches of the SQLite credit ledger (`reserveSoon` / `endSoon`): the operations queued in one
// event-loop turn run in one `BEGIN IMMEDIATE` transaction, in queue order, each decided as
// `reserve` would be against the counters the earlier ones left, and each promise settles once the
// batch committed (so a hold is on disk before any provider work, and a charge before the answer's
// last frame). The counter work is coalesced (`CounterBatch`, ledger-batch.ts): a level's counters
// are read at most once per batch and written once, at its end; the reservation and usage rows are
// still written per operation (a hold's once the batch's ends have run). In a batch of N requests (a hold and an end each) of one key, that is
// 2N inserts + N claims + at most one levels read and one bump per level, instead of N reads,
// 2N inserts, N claims and 4N–8N bumps.
//
// A batch the store refuses (store-errors.ts) fails its holds with a retryable 503 and hands its
// ends to settle-backlog.ts; while ends wait there, new holds are refused before provider work.
import type Database from 'better-sqlite3';
import { GatewayError } from '../errors.js';
import { errors } from '../errors/index.js';
import type { ReserveInput } from './ledger-api.js';
import { CounterBatch, type BatchStatements } from './ledger-batch.js';
import type { LedgerWrites } from './ledger-writes.js';
import { SettleBacklog, type PendingEnd } from './settle-backlog.js';
import { isStoreUnwritable } from './store-errors.js';
import { scheduleBatch, type StoreFaultSwitch } from './fault-switch.js';
import type { Reservation, UsageRecord } from './types.js';

/** An operation waiting for the batch (one transaction) that runs it. */
type Op =
  | { kind: 'end'; reservation: Reservation; record: UsageRecord; resolve: (ended: boolean) => void; reject: (err: unknown) => void }
  | { kind: 'reserve'; input: ReserveInput; resolve: (r: Reservation) => void; reject: (err: unknown) => void };

const ignore = (): void => undefined;

export class LedgerQueue {
  private queue: Op[] = [];
  /** runs a batch; returns, per operation, what settles its promise once the transaction committed */
  private readonly batchTx: Database.Transaction<(batch: readonly Op[]) => (() => void)[]>;
  /** ends the store refused, retried with backoff */
  readonly backlog: SettleBacklog;
  /** GATEWAY_STORE_FAULT_FILE (fault-switch.ts), applied before each batch; null normally */
  faults: StoreFaultSwitch | null = null;

  constructor(
    db: Database.Database,
    st: BatchStatements,
    private readonly writes: LedgerWrites,
  ) {
    this.batchTx = db.transaction((batch: readonly Op[]) => {
      writes.begin();
      const counters = new CounterBatch(st); // this batch's only: never reused
      const settle = batch.map((op) => this.runOp(op, counters));
      writes.placeHolds(); // after the ends: a hold's row goes where one of theirs was
      counters.write();
      return settle;
    });
    this.backlog = new SettleBacklog((ends: readonly PendingEnd[]) => {
      this.faults?.apply();
      this.batchTx.immediate(ends.map((e): Op => ({ kind: 'end', reservation: e.reservation, record: e.record, resolve: ignore, reject: ignore })));
      writes.committed();
    });
  }

  /** One operation inside the batch transaction. A refused hold counted nothing, so the batch goes on. */
  private runOp(op: Op, counters: CounterBatch): () => void {
    if (op.kind === 'end') {
      const ended = this.writes.end(op.reservation, op.record, counters);
      return () => op.resolve(ended);
    }
    try {
      const reservation = this.writes.reserve(op.input, counters);
      return () => op.resolve(reservation);
    } catch (err) {
      if (GatewayError.is(err)) return () => op.reject(err);
      throw err; // a store failure: the whole batch rolls back
    }
  }

  /** `alone` (ledger-api.ts): a batch this operation starts commits at once, not in the next turn. */
  private enqueue(op: Op, alone: boolean): void {
    this.queue.push(op);
    if (this.queue.length === 1) scheduleBatch(this.flushNow, alone);
  }

  private readonly flushNow = (): void => this.flush();

  /** `amount` is checked by the caller. */
  reserveSoon(input: ReserveInput, alone = false): Promise<Reservation> {
    if (this.backlog.size > 0) return Promise.reject(errors.storeUnwritable(this.backlog.retryAfterSeconds()));
    return new Promise((resolve, reject) => this.enqueue({ kind: 'reserve', input, resolve, reject }, alone));
  }

  /** `record` as it is to be written (cost 0 for a release); its cost is checked by the caller. */
  endSoon(reservation: Reservation, record: UsageRecord): Promise<boolean> {
    return new Promise((resolve, reject) => this.enqueue({ kind: 'end', reservation, record, resolve, reject }, false));
  }

  /** Runs what is queued as one batch now. */
  flush(): void {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    let settle: (() => void)[];
    try {
      this.faults?.apply();
      settle = this.batchTx.immediate(batch);
      this.writes.committed();
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
}
