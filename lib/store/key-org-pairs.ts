// The (key, organization) pairs of usage rows that key_orgs holds (migrations 6 and 7), as the
// ledger keeps it: every usage row it writes has its pair in key_orgs, which is what the admin
// reads by key or by time alone search (admin-usage-ops.ts: a pair missing there would hide rows).
//
// Until migration 7 a trigger on usage did this, for every row: it probed key_orgs and wrote
// nothing for a known pair, i.e. almost always, at about 1 µs per row (the trigger's program runs
// even when its WHEN clause is false). Now the ledger remembers which pairs key_orgs is known to
// hold, and only an unknown pair costs an `INSERT OR IGNORE` (the first row of a key in this
// process, or after a key moved to another organization). Several processes on one file each
// insert the pairs they do not know; the insert is idempotent.
//
// A pair is known only once the transaction that wrote it has committed: a batch the store
// refused (its ends go to the backlog and are written again later) or an outer transaction that
// rolled back leaves key_orgs without it, so its next row inserts it again. Other writers of usage
// rows (a process of the previous version during a rolling upgrade, which no longer has the
// trigger) are covered by the triggers on keys (migration 7): every key's (id, organization) is in
// key_orgs, and such a writer takes its rows' pairs from the keys table.
import type Database from 'better-sqlite3';

export class KeyOrgPairs {
  /** pairs in key_orgs, committed: organizations by key */
  private readonly known = new Map<string, Set<string>>();
  /** pairs the transaction in progress inserted (known once it commits) */
  private added: [key: string, org: string][] = [];
  private readonly insert: Database.Statement<[string, string]>;

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare('INSERT OR IGNORE INTO key_orgs (key_id, org) VALUES (?, ?)');
  }

  /** At the start of a write transaction that may write usage rows: forgets what a failed one added. */
  begin(): void {
    if (this.added.length > 0) this.added = [];
  }

  /** Inside the transaction, for each usage row written: its pair goes into key_orgs unless known. */
  note(key: string, org: string): void {
    if (this.known.get(key)?.has(org) === true) return;
    this.insert.run(key, org);
    this.added.push([key, org]);
  }

  /**
   * After the transaction's commit returned. Inside an outer transaction (the ledger's was then a
   * savepoint, which that one may still roll back), nothing becomes known: the pairs are inserted
   * again, harmlessly, the next time.
   */
  committed(): void {
    if (this.added.length === 0) return;
    if (!this.db.inTransaction) {
      for (const [key, org] of this.added) {
        let orgs = this.known.get(key);
        if (orgs === undefined) this.known.set(key, (orgs = new Set()));
        orgs.add(org);
      }
    }
    this.added = [];
  }
}
