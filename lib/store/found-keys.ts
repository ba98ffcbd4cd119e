// The keys a store found, remembered by the credential as presented (both stores' `findKey`): a
// known key's next request skips the SHA-256 of its secret (about 1 µs, 0.7-1 % of a judged
// request). Keys found only (a wrong key still goes through the hash), so one entry per live key,
// at most KEY_CACHE_MAX; in memory only. Its owner clears it whenever the keys may have changed (a
// reload, an admin change, another process's: key_epoch, NOTIFY or the bus), so it never answers
// anything but what the lookup by hash answers at that moment.
import type { KeyRecord } from './types.js';

/** Key records remembered by hash (negative answers included) and by presented credential, at most. */
export const KEY_CACHE_MAX = 10_000;

export class FoundKeys {
  private readonly byPresented = new Map<string, KeyRecord>();

  /** The record found before for exactly this credential, or undefined (never looked up, or forgotten since). */
  get(presented: string): KeyRecord | undefined {
    return this.byPresented.get(presented);
  }

  /** `record` is what the lookup by hash found for `presented` (a found key only). */
  remember(presented: string, record: KeyRecord): void {
    if (this.byPresented.size < KEY_CACHE_MAX) this.byPresented.set(presented, record);
  }

  clear(): void {
    this.byPresented.clear();
  }
}
