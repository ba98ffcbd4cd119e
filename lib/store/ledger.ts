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
// - reserveSoon/endSoon: the operations queued in one event-loop turn run in one transaction
//   (ledger-queue.ts), with the counters of the batch coalesced (ledger-batch.ts).
//
// Files: this one is the `Ledger` (one-call transactions, reads, credits); ledger-writes.ts what a
// hold, an end and the stale release do inside a transaction; ledger-queue.ts the batches;
// ledger-statements.ts the SQL.
import type Database from 'better-sqlite3';
import type { Balance, Ledger, ReserveInput, StoredUsage, UsageQuery } from './ledger-api.js';
import type { BatchStatements } from './ledger-batch.js';
import { LedgerQueue } from './ledger-queue.js';
import { LedgerStatements } from './ledger-statements.js';
import { LedgerWrites } from './ledger-writes.js';
import type { SettleBacklog } from './settle-backlog.js';
import type { StoreFaultSwitch } from './fault-switch.js';
import type { Reservation, UsageRecord } from './types.js';

export type { Balance, Ledger, ReserveInput, StoredUsage, UsageQuery } from './ledger-api.js';

function assertUnits(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a non-negative integer of units, got ${value}`);
}

export class SqliteLedger implements Ledger {
  private readonly st: LedgerStatements;
  // the statements a batch runs, by name on the ledger too (test/store/ledger-batch-counters.test.ts
  // counts the calls a batch makes on them)
  private readonly levels: BatchStatements['levels'];
  private readonly bumpOrg: BatchStatements['bumpOrg'];
  private readonly bumpKey: BatchStatements['bumpKey'];
  private readonly bumpProject: BatchStatements['bumpProject'];
  private readonly bumpEnv: BatchStatements['bumpEnv'];
  private readonly queue: LedgerQueue;
  private readonly reserveTx: Database.Transaction<(input: ReserveInput) => Reservation>;
  private readonly endTx: Database.Transaction<(reservation: Reservation, record: UsageRecord | null) => boolean>;
  private readonly writes: LedgerWrites;
  private readonly staleTx: Database.Transaction<() => number>;
  private readonly creditTx: Database.Transaction<(org: string, units: number, reason: string) => number>;

  constructor(
    readonly db: Database.Database,
    readonly bootId: string,
  ) {
    const st = (this.st = new LedgerStatements(db));
    const writes = new LedgerWrites(db, st, bootId);
    ({ levels: this.levels, bumpOrg: this.bumpOrg, bumpKey: this.bumpKey, bumpProject: this.bumpProject, bumpEnv: this.bumpEnv } = st);
    this.queue = new LedgerQueue(db, { levels: this.levels, bumpOrg: this.bumpOrg, bumpKey: this.bumpKey, bumpProject: this.bumpProject, bumpEnv: this.bumpEnv }, writes);
    this.reserveTx = db.transaction((input: ReserveInput) => {
      writes.begin();
      return writes.reserve(input);
    });
    this.endTx = db.transaction((reservation: Reservation, record: UsageRecord | null) => {
      writes.begin();
      return writes.end(reservation, record);
    });
    this.writes = writes;
    this.staleTx = db.transaction(() => writes.releaseDeadOwners());
    this.creditTx = db.transaction((org: string, units: number, reason: string) => {
      if (st.creditOrg.run(units, org).changes === 0) throw new Error(`unknown organization "${org}"`);
      st.insertCreditEvent.run(org, units, reason, Date.now());
      return st.selectBalance.get(org)!.balance;
    });
  }

  /** ends the store refused, retried with backoff */
  get backlog(): SettleBacklog {
    return this.queue.backlog;
  }

  /** GATEWAY_STORE_FAULT_FILE (fault-switch.ts), applied before each batch; null normally */
  get faults(): StoreFaultSwitch | null {
    return this.queue.faults;
  }

  set faults(faults: StoreFaultSwitch | null) {
    this.queue.faults = faults;
  }

  reserveSoon(input: ReserveInput, alone = false): Promise<Reservation> {
    assertUnits(input.amount, 'reservation amount');
    return this.queue.reserveSoon(input, alone);
  }

  endSoon(reservation: Reservation, record: UsageRecord, charge: boolean): Promise<boolean> {
    if (charge) assertUnits(record.cost, 'cost');
    return this.queue.endSoon(reservation, charge ? record : { ...record, cost: 0 });
  }

  flush(): void {
    this.queue.flush();
  }

  /** Whether the ledger takes writes now (no settle waiting for the store): what /readyz can report. */
  writable(): boolean {
    return this.queue.backlog.size === 0;
  }

  reserve(input: ReserveInput): Reservation {
    assertUnits(input.amount, 'reservation amount');
    const reservation = this.reserveTx.immediate(input);
    this.writes.committed();
    return reservation;
  }

  settle(reservation: Reservation, record: UsageRecord): boolean {
    assertUnits(record.cost, 'cost');
    return this.ended(this.endTx.immediate(reservation, record));
  }

  release(reservation: Reservation, record?: UsageRecord): boolean {
    return this.ended(this.endTx.immediate(reservation, record ? { ...record, cost: 0 } : null));
  }

  /** An end's transaction committed (key-org-pairs.ts). */
  private ended(ended: boolean): boolean {
    this.writes.committed();
    return ended;
  }

  releaseStale(): number {
    return this.staleTx.immediate();
  }

  balanceOf(org: string): Balance | null {
    const row = this.st.selectBalance.get(org);
    return row ? { balance: row.balance, reserved: row.reserved, spent: row.spent, spendCap: row.spend_cap } : null;
  }

  orgIds(): string[] {
    return this.st.selectOrgIds.all().map((r) => r.id);
  }

  usageFor(query: UsageQuery): StoredUsage[] {
    return this.st.selectUsage.all({ org: query.org ?? null, key: query.keyId ?? null, limit: query.limit });
  }

  addCredits(org: string, units: number, reason: string): number {
    if (!Number.isSafeInteger(units) || units === 0) throw new TypeError(`credits must be a non-zero integer of units, got ${units}`);
    return this.creditTx.immediate(org, units, reason);
  }

  openReservations(): number {
    return this.st.countReservations.get()!.n;
  }
}
