// Key lookups of the SQLite store (`Store.findKey`). Keys are stored as SHA-256 hashes only; a
// presented key is hashed and looked up by that hash (an index probe whose cost does not depend on
// how close a guess was), then compared with timingSafeEqual. Answers are kept in memory by hash
// (negative ones too, bounded) and, for a key found, by what was presented (found-keys.ts), so its
// next requests skip both the hash and the SQL. `forget` drops both whenever the keys may have
// changed (the store calls it on a reload, an admin change, key_epoch and the bus).
import { timingSafeEqual } from 'node:crypto';
import type Database from 'better-sqlite3';
import { FoundKeys, KEY_CACHE_MAX } from './found-keys.js';
import { hashKey, toRecord } from './key-rows.js';
import type { KeyRow } from './seed-keys.js';
import type { KeyRecord } from './types.js';

export class SqliteKeys {
  private readonly keyByHash: Database.Statement<[string], KeyRow>;
  /** key records by hash, filled on first lookup: no SQL on the hot path */
  private readonly byHash = new Map<string, KeyRecord | null>();
  private readonly found = new FoundKeys();

  constructor(db: Database.Database) {
    this.keyByHash = db.prepare<[string], KeyRow>(
      'SELECT id, hash, org, project, environment, scopes, models, spend_cap, rpm, tpm FROM keys WHERE hash = ? AND disabled = 0',
    );
  }

  /** The key record for a presented credential, or null. */
  find(presented: string): KeyRecord | null {
    const known = this.found.get(presented);
    if (known !== undefined) return known;
    const hash = hashKey(presented);
    let record = this.byHash.get(hash);
    if (record === undefined) {
      const row = this.keyByHash.get(hash);
      record = null;
      if (row && timingSafeEqual(Buffer.from(row.hash, 'hex'), Buffer.from(hash, 'hex'))) record = toRecord(row);
      // negative answers are cached too, but bounded so a flood of random keys cannot grow memory
      if (record !== null || this.byHash.size < KEY_CACHE_MAX) this.byHash.set(hash, record);
    }
    if (record !== null) this.found.remember(presented, record);
    return record;
  }

  /** The keys may have changed: the next lookup of each reads the store. */
  forget(): void {
    this.byHash.clear();
    this.found.clear();
  }
}
