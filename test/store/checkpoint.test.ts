// WAL checkpoints run in a worker thread for the serving gateway: the database file takes the
// committed pages without any commit on the event loop doing the copy, and close leaves no WAL.
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { Store } from '../../lib/store/store.js';
import { config, seededFileStore, serveOne, testKey } from './checkpoint-fixture.js';

const require = createRequire(import.meta.url);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function writeMany(store: Store, n: number): Promise<void> {
  const key = testKey(store);
  for (let i = 0; i < n; i++) await serveOne(store, key, `req-${i}`);
}

t.test('the worker copies the WAL into the database file; close leaves nothing in the WAL', async (t) => {
  const { file, store } = seededFileStore(t);
  const errors: Error[] = [];
  store.startCheckpointer(50, (err) => errors.push(err));
  t.equal(store.db.pragma('wal_autocheckpoint', { simple: true }), 0, 'commits on the event loop never checkpoint');
  const before = statSync(file).size;
  await writeMany(store, 1500);
  let grown = false;
  for (let i = 0; i < 200 && !grown; i++) {
    await sleep(50);
    grown = statSync(file).size > before + 64 * 1024;
  }
  t.ok(grown, `the database file took the committed pages (${before} → ${statSync(file).size} bytes)`);
  t.same(errors.map((e) => e.message), [], 'the worker ran without an error');
  const balance = store.ledger.balanceOf('acme')!;
  store.close();
  const wal = `${file}-wal`;
  t.ok(!existsSync(wal) || statSync(wal).size === 0, 'no WAL left after close');
  const again = new Store(`sqlite:${file}`);
  t.same(again.ledger.balanceOf('acme'), balance, 'everything committed is in the file');
  t.equal((again.db.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n, 1500);
  again.close();
});

t.test('in memory there is nothing to checkpoint', async (t) => {
  const store = new Store('sqlite::memory:');
  store.startCheckpointer();
  store.seed(config);
  await writeMany(store, 10);
  store.close();
  t.pass('no worker, no error');
});

t.test('close while another connection is in the middle of a checkpoint still leaves no WAL', async (t) => {
  // SQLite answers TRUNCATE with "busy" (without waiting) while another connection checkpoints, as
  // the checkpoint worker may at shutdown, and the process may exit before that connection closes.
  // A helper thread checkpoints in a loop for 300 ms and keeps its connection open until told:
  // close must wait the loop out rather than take "busy" for done.
  const { file, store } = seededFileStore(t);
  store.startCheckpointer(3_600_000); // its own timer never fires here
  await writeMany(store, 300);
  const busy = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const db = new (require(workerData.lib))(workerData.file);
     const end = Date.now() + 300;
     parentPort.postMessage('started');
     while (Date.now() < end) db.pragma('wal_checkpoint(PASSIVE)');
     parentPort.once('message', () => db.close());`,
    { eval: true, workerData: { file, lib: require.resolve('better-sqlite3') } },
  );
  await once(busy, 'message');
  await writeMany(store, 50); // frames for the helper to copy while close runs
  store.close();
  const wal = `${file}-wal`;
  t.equal(existsSync(wal) ? statSync(wal).size : 0, 0, 'the WAL is empty after close, with the other connection still open');
  busy.postMessage('close');
  await once(busy, 'exit');
});
