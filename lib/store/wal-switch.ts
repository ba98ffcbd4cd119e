// The switch of a store file to write-ahead logging, for processes opening one new file together
// (bin/gateway --workers, a rolling restart). The switch needs the file's exclusive lock, and
// SQLite answers SQLITE_BUSY at once, without waiting through busy_timeout, when another process
// holds a lock it could be waiting on in turn (the other process switching the same file, or
// migrating it). So the switch is tried again, after a short sleep, until the busy timeout has
// passed; a file already in WAL mode (a later start) takes one try.
import type Database from 'better-sqlite3';

/** How long the switch keeps trying, as busy_timeout does for other statements. */
export const WAL_SWITCH_WAIT_MS = 5000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Set journal_mode = WAL, trying again while another process holds the file locked. */
export function switchToWal(db: Database.Database, waitMs = WAL_SWITCH_WAIT_MS): void {
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const busy = typeof code === 'string' && code.startsWith('SQLITE_BUSY');
      if (!busy || Date.now() >= deadline) throw err;
      // 2, 4, 8 ... ms up to 50: the other process's switch or migration takes a few milliseconds
      Atomics.wait(sleeper, 0, 0, Math.min(50, 2 << Math.min(attempt, 5)));
    }
  }
}
