// Requests further apart than the checkpoints do not start the WAL over: after its copy the
// checkpointer's guard keeps its snapshot, so the next commit appends to the WAL instead of writing
// (and syncing) a new WAL header on the event loop, in the middle of a request. The WAL starts over
// once it has grown to RESTART_BYTES, and every commit still reaches the database file.
import { openSync, readSync, closeSync } from 'node:fs';
import Database from 'better-sqlite3';
import t from 'tap';
import { RESTART_BYTES } from '../../lib/store/checkpointer.js';
import { seededFileStore, serveOne, testKey } from './checkpoint-fixture.js';
import { baseConfig, startGateway } from '../helpers/gateway.js';
import { fileStoreConfig, msg, post } from '../helpers/messages.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The WAL header's salts (bytes 16–23 of the -wal file): SQLite draws new ones each time the WAL starts over. */
function walSalts(file: string): string {
  const fd = openSync(`${file}-wal`, 'r');
  try {
    const b = Buffer.alloc(8);
    readSync(fd, b, 0, 8, 16);
    return b.toString('hex');
  } finally {
    closeSync(fd);
  }
}

/** What another connection finds: frames in the WAL and frames already copied into the database file. */
function walState(file: string): { log: number; checkpointed: number } {
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 0');
    // RESTART would wait for readers; PASSIVE with nothing left to copy only reports
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    return { log: row!.log, checkpointed: row!.checkpointed };
  } finally {
    db.close();
  }
}

t.test('idle requests append to the WAL; it starts over once it is large', async (t) => {
  const { file, store } = seededFileStore(t);
  const errors: Error[] = [];
  store.startCheckpointer(20, (err) => errors.push(err));
  const key = testKey(store);
  await serveOne(store, key, 'first');
  await sleep(120);
  const salts = walSalts(file);
  for (let i = 0; i < 10; i++) {
    await serveOne(store, key, `idle-${i}`);
    await sleep(80); // several checkpoints: each idle request starts after a complete one
    t.equal(walSalts(file), salts, `request ${i} after a checkpoint appended to the WAL (it did not start over)`);
  }
  const state = walState(file);
  t.ok(state.log > 0 && state.checkpointed === state.log, `every frame was copied into the database file (${state.checkpointed} of ${state.log})`);

  // past RESTART_BYTES (2 KB pages, several frames a request), the WAL is let start over
  let restarted = false;
  for (let i = 0; i < 4000 && !restarted; i++) {
    await serveOne(store, key, `fill-${i}`);
    if (i % 50 === 49) await sleep(60);
    restarted = walSalts(file) !== salts;
  }
  t.ok(restarted, `the WAL started over once it had grown past ${RESTART_BYTES} bytes`);
  t.same(errors.map((e) => e.message), [], 'every checkpoint ran without an error');
  const rows = (store.db.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n;
  store.close();
  const again = new Database(file, { readonly: true });
  t.equal((again.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n, rows, 'every usage record is in the file after close');
  again.close();
});

t.test('through bin/gateway: Messages requests 250 ms apart never start the WAL over', async (t) => {
  const { config } = fileStoreConfig(baseConfig());
  const file = (config.store as string).slice('sqlite:'.length);
  const gw = await startGateway(config);
  t.teardown(() => gw.stop());
  t.equal((await post(gw, msg('opus'))).status, 200);
  await sleep(300); // the serving checkpointer (every 100 ms) has copied the whole WAL
  const salts = walSalts(file);
  for (let i = 0; i < 6; i++) {
    t.equal((await post(gw, msg('opus'))).status, 200, `request ${i} answered`);
    await sleep(250);
  }
  t.equal(walSalts(file), salts, 'every request after a complete checkpoint appended to the WAL');
  // the gateway also commits on its own (its lease): within a few checkpoints every frame is copied
  let state = walState(file);
  for (let i = 0; i < 20 && state.checkpointed !== state.log; i++) {
    await sleep(50);
    state = walState(file);
  }
  t.ok(state.log > 0 && state.checkpointed === state.log, `the serving checkpointer copied every frame (${state.checkpointed} of ${state.log})`);
  t.equal(await gw.stop(), 0, 'graceful exit');
  const db = new Database(file, { readonly: true });
  t.equal((db.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n, 7, 'every request charged, in the file');
  db.close();
});
