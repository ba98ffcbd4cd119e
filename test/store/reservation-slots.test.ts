// Where the SQLite ledger puts a hold's row (migration 8, lib/store/reservation-slots.ts): at a slot
// its process reuses, so that requests of about equal length in flight cost no more pages per commit
// than none; the slot is never the claim (an end deletes by slot and id, a taken slot fails on the
// key and the hold goes elsewhere), and a file of version 7 keeps its open holds through the upgrade.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { MIGRATIONS } from '../../lib/store/migrations.js';
import { Store } from '../../lib/store/store.js';
import type { Reservation } from '../../lib/store/types.js';
import { config, open, record, rid } from './ledger-fixture.js';

function tempFile(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'reservation-slots-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'gateway.db');
}

/** WAL frames per commit of mixed batches (3 holds + 3 ends of the oldest), `inFlight` holds kept in flight. */
async function pagesPerCommit(t: Test, inFlight: number): Promise<number> {
  const { store, key } = open(`sqlite:${tempFile(t)}`);
  t.teardown(() => store.close());
  const k = key('k_acme');
  let held: Reservation[] = [];
  const run = async (batches: number): Promise<void> => {
    for (let i = 0; i < batches; i++) {
      // the holds queued first: their rows still go where the ends' were
      const holds = [0, 1, 2].map(() => store.ledger.reserveSoon({ requestId: rid(), key: k, amount: 1000 }));
      const ending = held.length > inFlight ? held.splice(0, 3) : [];
      const ends = ending.map((h) => store.ledger.endSoon(h, record(h, k, 10), true));
      const [taken] = await Promise.all([Promise.all(holds), Promise.all(ends)]);
      held.push(...taken);
    }
  };
  await run(inFlight + 60); // the steady state: holds in flight, and usage pages filled and split
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  store.db.pragma('wal_autocheckpoint = 0');
  const commits = 300;
  await run(commits);
  const pageSize = store.db.pragma('page_size', { simple: true }) as number;
  const wal = readFileSync(`${store.db.name}-wal`);
  return (wal.length - 32) / (24 + pageSize) / commits;
}

t.test('holds in flight cost no more pages per commit than none: a hold takes the place of an end of its batch', async (t) => {
  const none = await pagesPerCommit(t, 0);
  const many = await pagesPerCommit(t, 64);
  t.ok(many < none + 1.5, `with 64 holds in flight ${many.toFixed(2)} pages per commit, with none ${none.toFixed(2)}`);
});

t.test('an end of a hold whose slot a later hold took ends nothing, and the later hold stays', async (t) => {
  const { store, key } = open();
  t.teardown(() => store.close());
  const l = store.ledger;
  const k = key('k_acme');
  const first = await l.reserveSoon({ requestId: rid(), key: k, amount: 700 });
  t.equal(await l.endSoon(first, record(first, k, 100), true), true);
  const second = await l.reserveSoon({ requestId: rid(), key: k, amount: 300 });
  const slots = store.db.prepare<[], { slot: number; id: string }>('SELECT slot, id FROM reservations').all();
  t.same(slots.map((r) => r.id), [second.id]);
  t.equal(await l.endSoon(first, record(first, k, 100), true), false, 'the first hold ended already');
  t.equal(l.release(first), false);
  t.equal(l.openReservations(), 1, 'the second hold is still open');
  t.match(l.balanceOf('acme'), { reserved: 300, spent: 100 });
  t.equal(await l.endSoon(second, record(second, k, 50), true), true);
  t.match(l.balanceOf('acme'), { reserved: 0, spent: 150 });

  // a hold taken inside a caller's transaction that rolls back never existed; another writer's row
  // then at its slot is not its row
  let gone: Reservation | undefined;
  let slot = 0;
  t.throws(() =>
    store.db.transaction(() => {
      gone = l.reserve({ requestId: rid(), key: k, amount: 200 });
      slot = store.db.prepare<[string], { slot: number }>('SELECT slot FROM reservations WHERE id = ?').get(gone.id)!.slot;
      throw new Error('the caller changes its mind');
    })(),
  );
  store.db.prepare(`INSERT INTO reservations (slot, id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
    VALUES (?, 'res_elsewhere', 'req_elsewhere', 'k_acme', 'acme', NULL, NULL, 200, 'another_process', 0)`).run(slot);
  t.equal(l.release(gone!), false, 'the rolled-back hold ends nothing');
  t.equal(l.openReservations(), 1, "the other writer's row is still there");
});

t.test('two stores on one file end each other\'s holds, and a slot another writer took is passed over', async (t) => {
  const file = tempFile(t);
  const a = open(`sqlite:${file}`);
  t.teardown(() => a.store.close());
  const b = new Store(`sqlite:${file}`);
  t.teardown(() => b.close());
  const k = a.key('k_acme');
  const fromA = await a.store.ledger.reserveSoon({ requestId: rid(), key: k, amount: 100 });
  // a writer that does not know slots (a process of the previous version): SQLite puts its row
  // at the rowid after the largest, the next fresh slot of `a`
  b.db.prepare(`INSERT INTO reservations (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
    VALUES ('res_other', 'req_other', 'k_acme', 'acme', NULL, NULL, 200, ?, 0)`).run(b.bootId);
  b.db.prepare("UPDATE orgs SET reserved = reserved + 200 WHERE id = 'acme'").run();
  b.db.prepare("UPDATE keys SET reserved = reserved + 200 WHERE id = 'k_acme'").run();
  const next = await a.store.ledger.reserveSoon({ requestId: rid(), key: k, amount: 400 });
  t.equal(a.store.ledger.openReservations(), 3, 'the hold went to another slot');
  const fromB = await b.ledger.reserveSoon({ requestId: rid(), key: k, amount: 800 });
  const other: Reservation = { id: 'res_other', requestId: 'req_other', keyId: 'k_acme', amount: 200 };
  t.same(
    await Promise.all([b.ledger.endSoon(fromA, record(fromA, k, 10), true), a.store.ledger.endSoon(fromB, record(fromB, k, 20), true), a.store.ledger.endSoon(other, record(other, k, 0), false)]),
    [true, true, true],
  );
  t.equal(await a.store.ledger.endSoon(fromA, record(fromA, k, 10), true), false, 'ended by the other store already');
  t.equal(await a.store.ledger.endSoon(next, record(next, k, 40), true), true);
  t.equal(b.ledger.openReservations(), 0);
  t.match(b.ledger.balanceOf('acme'), { reserved: 0, spent: 70 });
});

t.test('holds open in a version-7 file survive the upgrade, and end by id or by the sweep', async (t) => {
  const file = tempFile(t);
  const old = new Database(file);
  for (const sql of MIGRATIONS.slice(0, 7)) old.exec(sql);
  old.pragma('user_version = 7');
  old.prepare("INSERT INTO orgs (id, balance, reserved) VALUES ('acme', 100000000000, 1200)").run();
  old.prepare("INSERT INTO keys (id, hash, org, reserved) VALUES ('k_acme', 'h', 'acme', 1200)").run();
  const hold = old.prepare(`INSERT INTO reservations (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
    VALUES (?, ?, 'k_acme', 'acme', NULL, NULL, ?, ?, 0)`);
  hold.run('res_a', 'req_a', 700, 'boot_of_a_dead_process');
  hold.run('res_b', 'req_b', 500, 'boot_of_a_live_process');
  old.close();

  const store = new Store(`sqlite:${file}`);
  t.teardown(() => store.close());
  store.seed(config(`sqlite:${file}`));
  t.equal(store.db.pragma('user_version', { simple: true }), MIGRATIONS.length);
  t.equal(store.ledger.openReservations(), 2, 'both holds are still there');
  const b: Reservation = { id: 'res_b', requestId: 'req_b', keyId: 'k_acme', amount: 500, org: 'acme', project: null, environment: null };
  t.equal(store.ledger.release(b), true, 'a hold of another process ends by its id');
  t.equal(store.ledger.release(b), false, 'once');
  t.equal(store.releaseStale(), 1, 'the sweep releases the hold of an owner with no lease');
  const key = store.findKey('sk-ledger-acme')!;
  const fresh = await store.ledger.reserveSoon({ requestId: rid(), key, amount: 300 });
  t.equal(await store.ledger.endSoon(fresh, record(fresh, key, 120), true), true);
  t.match(store.ledger.balanceOf('acme'), { reserved: 0, spent: 120 });
});
