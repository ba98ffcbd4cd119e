// The serving gateway's WAL stays bounded under sustained writes: the checkpointer copies the WAL
// into the database file and then lets it start over (once the copied pages are synced), so the
// next commits reuse the WAL from its beginning instead of growing it. Without checkpoints that
// finish (a copy never synced, a guard never released) the WAL grows by every commit.
import { existsSync, statSync } from 'node:fs';
import t from 'tap';
import { Store } from '../../lib/store/store.js';
import { seededFileStore, serveOne, testKey } from './checkpoint-fixture.js';

t.test('sustained writes: the WAL stays bounded and everything committed reaches the database file', async (t) => {
  const { file, store } = seededFileStore(t);
  const errors: Error[] = [];
  store.startCheckpointer(20, (err) => errors.push(err));
  const key = testKey(store);
  const wal = `${file}-wal`;
  let largest = 0;
  const n = 4800; // without a WAL that starts over, about 34 MB of it
  // batches of 8 requests, each its own hold and settle commits, 10 ms apart (about 600 requests a second)
  for (let i = 0; i < n; i += 8) {
    const batch = Array.from({ length: 8 }, (_, k) => serveOne(store, key, `req-${i + k}`));
    await Promise.all(batch);
    await new Promise((r) => setTimeout(r, 10));
    largest = Math.max(largest, statSync(wal).size);
  }
  t.ok(largest < 16 * 1024 * 1024, `the WAL started over and stayed under 16 MB (largest ${(largest / 2 ** 20).toFixed(1)} MB over ${n * 2} commits)`);
  t.same(errors.map((e) => e.message), [], 'every checkpoint ran without an error');
  const balance = store.ledger.balanceOf('acme')!;
  store.close();
  t.ok(!existsSync(wal) || statSync(wal).size === 0, 'no WAL left after close');
  const again = new Store(`sqlite:${file}`);
  t.same(again.ledger.balanceOf('acme'), balance, 'the balance is in the file');
  t.equal((again.db.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n, n, 'every usage record is in the file');
  again.close();
});
