// Where this process's reservation rows sit in the SQLite reservations table (migration 8): each row
// at a slot, its rowid, which the process reuses once the hold there has ended. A batch inserts its
// holds after its ends have run (ledger-writes.ts), and a hold takes the slot most recently freed,
// i.e. one of its own batch's ends where there is one: the new row goes where the old one was, on a
// page the commit writes anyway, and the table keeps its shape (no page split at one end and merge
// at the other while requests of about equal length are in flight).
//
// The slots are a hint for where rows go, never a claim: the table's key is the judge. A slot still
// taken (a row another writer put there) fails the insert on its primary key, and the hold takes
// another slot. This process's slots start at a random base, so processes sharing a file keep apart
// (a database in memory, which no other process shares, starts at a fixed one);
// a base another process also drew is left for a new one. What an end frees counts only once its
// transaction committed (a rollback puts the row back). A hold carries its slot (`Reservation.slot`)
// to its end, which deletes the row there if it has the hold's id: a slot reused since (the hold
// ended already, or never committed) has another id there, and nothing is deleted.
import { randomInt } from 'node:crypto';

/** slots per base: far more holds than one process keeps in flight */
const SPAN = 2 ** 20;
/** bases: rowids below 2^30, small integers to V8 (a larger number is a heap object each time) */
const BASES = 2 ** 10;
/** fresh slots tried at one base before another is drawn (each failed only if that slot was taken) */
const TRIES_PER_BASE = 4;

export class ReservationSlots {
  /** slots freed by ends that committed, most recent last */
  private readonly free: number[] = [];
  /** slots freed by the ends of the transaction in progress (its rollback puts their rows back) */
  private freedNow: number[] = [];
  private base: number;
  /** the next slot never used at `base` */
  private next = 0;
  /** failed inserts on fresh slots at `base` since it was drawn */
  private misses = 0;

  /** `alone`: no other process writes the table (a database in memory): the first base is fixed. */
  constructor(alone = false) {
    this.base = alone ? SPAN : randomInt(1, BASES) * SPAN;
  }

  /** A slot for a new row: the one freed last (by the transaction in progress first), else a fresh one. */
  take(): number {
    const freed = this.freedNow.pop() ?? this.free.pop();
    if (freed !== undefined) return freed;
    if (this.next >= SPAN || this.misses >= TRIES_PER_BASE) {
      this.base = randomInt(1, BASES) * SPAN;
      this.next = 0;
      this.misses = 0;
    }
    return this.base + this.next++;
  }

  /** `slot` was taken in the table (its insert failed on the key): it is dropped, a fresh one next. */
  taken(slot: number): void {
    if (slot >= this.base && slot < this.base + SPAN) this.misses++;
  }

  /** The row at `slot` was deleted in the transaction in progress: a later hold may go there. */
  freed(slot: number): void {
    this.freedNow.push(slot);
  }

  /** The transaction in progress committed: what its ends freed stays free. */
  commit(): void {
    if (this.freedNow.length === 0) return;
    for (const slot of this.freedNow) this.free.push(slot);
    this.freedNow = [];
  }

  /** It did not (or may still be rolled back by an outer one): the rows it deleted are there again. */
  abandon(): void {
    if (this.freedNow.length > 0) this.freedNow = [];
  }
}
