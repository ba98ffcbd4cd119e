// The switch of a new store file to WAL mode waits for another process's lock (wal-switch.ts):
// SQLite refuses the switch at once, without waiting through busy_timeout, when the lock could
// deadlock; four gateway processes starting together on one new file then saw one of them fail
// with "database is locked" (test/store/shared-store-start.long.test.ts, about one round in 150 under load).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { switchToWal } from '../../lib/store/wal-switch.js';
import { ROOT } from '../helpers/paths.js';

function tempFile(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'wal-switch-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'gateway.db');
}

/** Another process reading the file (rollback journal: a shared lock) for `holdMs`; resolves once it holds the lock. */
function holdReadLock(file: string, holdMs: number): Promise<{ done: Promise<number | null> }> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.exec('BEGIN'); db.prepare('SELECT count(*) FROM sqlite_master').get();
    process.stdout.write('held\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', script, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve({ done }));
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
}

t.test('a switch refused while another process holds a lock is tried again until the lock is gone', async (t) => {
  const file = tempFile(t);
  new Database(file).exec('CREATE TABLE t (x)');
  const holder = await holdReadLock(file, 300);
  const db = new Database(file);
  t.teardown(() => db.close());
  db.pragma('busy_timeout = 0'); // SQLite refuses at once, as it does without waiting in the deadlock case
  t.throws(() => db.pragma('journal_mode = WAL'), { code: 'SQLITE_BUSY' }, 'the bare switch is refused while the lock is held');
  switchToWal(db);
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal', 'the file is in WAL mode');
  t.equal(await holder.done, 0);
});

t.test('a lock held past the wait still fails with SQLITE_BUSY, and anything but BUSY is not retried', async (t) => {
  const file = tempFile(t);
  new Database(file).exec('CREATE TABLE t (x)');
  const holder = await holdReadLock(file, 1500);
  const db = new Database(file);
  t.teardown(() => db.close());
  db.pragma('busy_timeout = 0');
  t.throws(() => switchToWal(db, 200), { code: 'SQLITE_BUSY' }, 'refused after the wait');
  await holder.done;
  const closed = new Database(file);
  closed.close();
  t.throws(() => switchToWal(closed), { name: 'TypeError' }, 'a closed connection throws at once');
});
