// What each change of the SQLite credit ledger does inside its write transaction (the caller holds
// it: `BEGIN IMMEDIATE`, alone or as one operation of a batch): a hold, an end, the release of what
// dead owners held. The rules are ledger.ts's; a batch's counters are ledger-batch.ts's.
import { timeOrderedId } from '../ids.js';
import type { ReserveInput } from './ledger-api.js';
import { bump, checkHold, levelsOf, readLevels, type CounterBatch, type Delta } from './ledger-batch.js';
import type { LedgerStatements } from './ledger-statements.js';
import { deadOwners } from './lease.js';
import type { Reservation, UsageRecord } from './types.js';

export class LedgerWrites {
  constructor(
    private readonly st: LedgerStatements,
    /** this process: the owner written into each reservation it takes (lease.ts) */
    private readonly bootId: string,
  ) {}

  /** At the start of a transaction that may end reservations, i.e. write usage rows (key-org-pairs.ts). */
  begin(): void {
    this.st.pairs.begin();
  }

  /** After that transaction committed: the (key, organization) pairs it wrote are known. */
  committed(): void {
    this.st.pairs.committed();
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
    // sorts by time: the hold's row goes at the end of the reservations table (lib/ids.ts)
    const id = timeOrderedId('res_');
    this.st.insertReservation.run(id, requestId, key.id, key.org, project, environment, amount, this.bootId, Date.now());
    // the levels go with it: its end then deletes the row without reading them back (`end`)
    return { id, requestId, keyId: key.id, amount, org: key.org, project, environment };
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
      if (this.st.deleteReservation.run(r.id).changes === 0) return false;
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
