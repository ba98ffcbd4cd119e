// What the rest of the gateway sees of the credit ledger (on SQLite in `ledger.ts`, on PostgreSQL in
// `pg/pg-ledger.ts`). `Awaitable` results are immediate on SQLite, promises on PostgreSQL.
import type { Awaitable } from './store-api.js';
import type { KeyRecord, Reservation, UsageRecord } from './types.js';

export interface ReserveInput {
  requestId: string;
  key: KeyRecord;
  /** amount to hold, in units */
  amount: number;
}

export interface Balance {
  balance: number;
  reserved: number;
  spent: number;
  spendCap: number | null;
}

export interface StoredUsage extends UsageRecord {
  createdAt: number;
}

export interface UsageQuery {
  org?: string | null;
  keyId?: string | null;
  limit: number;
}

export interface Ledger {
  /** hold `amount` atomically against balance and every spend cap; throws GatewayError 402 when refused */
  reserve(input: ReserveInput): Awaitable<Reservation>;
  /** one transaction: write the usage record, charge `record.cost`, release the hold; false when already ended */
  settle(reservation: Reservation, record: UsageRecord): Awaitable<boolean>;
  /** release everything (nothing charged); the record, if given, is written with cost 0; false when already ended */
  release(reservation: Reservation, record?: UsageRecord): Awaitable<boolean>;
  /**
   * `reserve`, batched with every other reserve and end of the same event-loop turn in one
   * transaction (one commit). Each hold is still decided alone, in queue order, against the counters
   * as the earlier operations of the batch left them; resolves once the batch committed (so the hold
   * is on disk before any provider work), rejects with the same 402 `reserve` would throw. `alone`:
   * no other answer is being worked in this process (lib/answers-running.ts), so nothing could join
   * the batch this turn: the SQLite ledger then commits at once instead of in the next turn (the
   * turn cost a lone request 0.03–0.04 ms before its provider call); PostgreSQL batches as before.
   * Ends always wait for the turn: a lone answer's last text leaves before its charge commits.
   */
  reserveSoon(input: ReserveInput, alone?: boolean): Promise<Reservation>;
  /**
   * `settle` (charge = true) or `release`, batched like `reserveSoon`: every reservation ended in the
   * same event-loop turn shares one transaction, so a busy gateway does not pay a commit per request.
   * Resolves once the batch committed; `flush()` commits what is queued at once (shutdown).
   */
  endSoon(reservation: Reservation, record: UsageRecord, charge: boolean): Promise<boolean>;
  flush(): Awaitable<void>;
  /** release the reservations of owners whose lease is gone or expired, never this process's (lease.ts); returns how many */
  releaseStale(): Awaitable<number>;
  balanceOf(org: string): Awaitable<Balance | null>;
  orgIds(): Awaitable<string[]>;
  usageFor(query: UsageQuery): Awaitable<StoredUsage[]>;
  /** add (or, negative, remove) credits with a reason; returns the new balance */
  addCredits(org: string, units: number, reason: string): Awaitable<number>;
  openReservations(): Awaitable<number>;
}
