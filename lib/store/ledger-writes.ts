// What each change of the SQLite credit ledger does inside its write transaction (the caller holds
// it: `BEGIN IMMEDIATE`, alone or as one operation of a batch): a hold, an end, the release of what
// dead owners held. The rules are ledger.ts's; a batch's counters are ledger-batch.ts's; where a
// hold's row goes, reservation-slots.ts's.
import type Database from 'better-sqlite3';
import { timeOrderedId } from '../ids.js';
import type { ReserveInput } from './ledger-api.js';
import { bump, checkHold, levelsOf, readLevels, type CounterBatch, type Delta } from './ledger-batch.js';
import type { LedgerStatements } from './ledger-statements.js';
import { deadOwners } from './lease.js';
import { ReservationSlots } from './reservation-slots.js';
import type { Reservation, UsageRecord } from './types.js';

/** How many slots a hold tries before the store is taken as failing (each miss: a slot another row holds). */
const SLOT_TRIES = 64;

export class LedgerWrites {
  private readonly slots: ReservationSlots;
  /** the holds of the batch in progress, placed once its ends have run (`placeHolds`) */
  private pending: Reservation[] = [];

  constructor(
    private readonly db: Database.Database,
    private readonly st: LedgerStatements,
    /** this process: the owner written into each reservation it takes (lease.ts) */
    private readonly bootId: string,
  ) {
    // a database in memory has no other writer: its slots start at a fixed base (runs repeat exactly)
    this.slots = new ReservationSlots(db.memory);
  }

  /**
   * At the start of every write transaction of the ledger: forgets what one that did not commit
   * left (the pairs it added, key-org-pairs.ts; the slots its ends freed).
   */
  begin(): void {
    this.st.pairs.begin();
    this.pending = [];
    this.slots.abandon();
  }

  /**
   * After that transaction's commit returned: the (key, organization) pairs it wrote are known, and
   * the slots its ends freed are free (not inside an outer transaction, which may still roll back).
   */
  committed(): void {
    this.st.pairs.committed();
    if (this.db.inTransaction) this.slots.abandon();
    else this.slots.commit();
  }

  /** One bump per level of `d` (a change outside a batch). */
  apply(d: Delta): void {
    const { st } = this;
    bump(st, 'org', d);
    bump(st, 'key', d);
    if (d.project !== null) {
      bump(st, 'project', d);
      if (d.environment !== null) bump(st, 'environment', d);
    }
  }

  /** Holds `amount` or throws the 402; in a batch, decided and counted by the batch's counters. */
  reserve({ requestId, key, amount }: ReserveInput, batch?: CounterBatch): Reservation {
    const project = key.project;
    const environment = project === null ? null : key.environment;
    const hold: Delta = { key: key.id, org: key.org, project, environment, reserve: amount, cost: 0 };
    if (batch) batch.hold(hold);
    else {
      checkHold(hold, levelsOf(readLevels(this.st, hold)));
      this.apply(hold);
    }
    // sorts by time (lib/ids.ts)
    const id = timeOrderedId('res_');
    // the levels go with it: its end then deletes the row without reading them back (`end`)
    const r: Reservation = { id, requestId, keyId: key.id, amount, org: key.org, project, environment, slot: undefined };
    if (batch) this.pending.push(r);
    else this.place(r);
    return r;
  }

  /** In a batch, after its ends: the rows of its holds, at the slots those ends freed where there are any. */
  placeHolds(): void {
    const holds = this.pending;
    if (holds.length === 0) return;
    this.pending = [];
    for (const r of holds) this.place(r);
  }

  /** Writes the row of hold `r` at a free slot (a slot another row holds fails on the key: the next is tried). */
  private place(r: Reservation): void {
    const now = Date.now();
    for (let tries = 1; ; tries++) {
      const slot = this.slots.take();
      try {
        this.st.insertReservation.run(slot, r.id, r.requestId, r.keyId, r.org!, r.project!, r.environment!, r.amount, this.bootId, now);
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY' || tries === SLOT_TRIES) throw err;
        this.slots.taken(slot);
        continue;
      }
      r.slot = slot;
      return;
    }
  }

  /**
   * Ends a reservation at the levels its row remembers (false: already ended, nothing done): charges
   * `record.cost` (0 for a release) and writes the record, if any; in a batch, its counter change is
   * left to the batch's `write()`. A reservation this ledger handed out carries those levels (the
   * row's own values, never changed since); any other is ended at the levels read from its row.
   */
  end(r: Reservation, record: UsageRecord | null, batch?: CounterBatch): boolean {
    const cost = record?.cost ?? 0;
    let d: Delta;
    if (r.org !== undefined && r.project !== undefined && r.environment !== undefined) {
      // found by its slot (deleted only if its id is still there), else by its id
      const { slot } = r;
      if ((slot === undefined ? this.st.deleteReservation.run(r.id) : this.st.deleteHold.run(slot, r.id)).changes === 0) return false;
      if (slot !== undefined) this.slots.freed(slot);
      d = { key: r.keyId, org: r.org, project: r.project, environment: r.environment, reserve: -r.amount, cost };
    } else {
      const row = this.st.claimReservation.get(r.id);
      if (row === undefined) return false;
      d = { key: row.key_id, org: row.org, project: row.project, environment: row.environment, reserve: -row.amount, cost };
    }
    if (batch) batch.add(d);
    else this.apply(d);
    if (record) this.st.insertUsageRecord(record);
    return true;
  }

  /**
   * Releases the reservations of owners that are not alive (no lease, an expired one, or a dead pid
   * on this machine; never this process's) and removes their leases; returns how many. In one write
   * transaction: a lease renewed meanwhile waits for it, so what was judged dead stays so.
   */
  releaseDeadOwners(): number {
    const { st } = this;
    const owners = st.reservationOwners.all(this.bootId).map((r) => r.boot_id);
    if (owners.length === 0) return 0;
    let released = 0;
    for (const owner of deadOwners(owners, st.selectLeases.all(), Date.now(), this.bootId).dead) {
      for (const r of st.ownerReservations.all(owner)) {
        this.apply({ key: r.key_id, org: r.org, project: r.project, environment: r.environment, reserve: -r.amount, cost: 0 });
        released++;
      }
      st.deleteLease.run(owner);
    }
    return released;
  }
}
