// Migration 7 (SQLite): key_orgs, which the admin reads by key or by time alone search, is kept by
// the ledger (key-org-pairs.ts) and by triggers on keys, no longer by a trigger on every usage
// insert. Every usage row stays visible to those reads: a pair the keys table never had, a pair
// whose first transaction rolled back (the ledger's own or an outer one, on the one-call and the
// batch path), and rows written by a writer that is not this ledger (a process of the previous
// version during a rolling upgrade), for keys that existed before the upgrade, were added after it
// or moved to another organization.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { MIGRATIONS } from '../../lib/store/migrations.js';
import { Store } from '../../lib/store/store.js';
import { keyRecord, usageRecord } from './usage-records.js';

function memoryStore(t: Test): Store {
  const store = new Store('sqlite::memory:');
  t.teardown(() => store.close());
  store.db.exec("INSERT INTO orgs (id, balance) VALUES ('acme', 1000000), ('beta', 1000000)");
  return store;
}

/** What the admin API and the ledger list for a key, and what they sum for it and for all time. */
async function byKey(store: Store, key: string): Promise<{ requests: string[]; usage: string[]; cost: number }> {
  const [sums] = await store.admin.usage({ key }, null);
  return {
    requests: (await store.admin.requests({ key }, 50, null)).map((r) => r.requestId).sort(),
    usage: store.ledger.usageFor({ keyId: key, limit: 50 }).map((r) => r.requestId).sort(),
    cost: (sums as { cost: number }).cost,
  };
}

async function allTime(store: Store): Promise<number> {
  const [sums] = await store.admin.usage({ from: 0 }, null);
  return (sums as { requests: number }).requests;
}

t.test('a usage row of a pair the keys table never had is listed by key and by time', async (t) => {
  const store = memoryStore(t);
  const ghost = keyRecord('k_nowhere', 'acme');
  const batched = await store.ledger.reserveSoon({ requestId: 'req_1', key: ghost, amount: 100 });
  t.equal(await store.ledger.endSoon(batched, usageRecord('req_1', ghost, 10), true), true);
  const moved = keyRecord('k_nowhere', 'beta');
  t.equal(store.ledger.settle(store.ledger.reserve({ requestId: 'req_2', key: moved, amount: 100 }), usageRecord('req_2', moved, 20)), true);
  t.same(await byKey(store, 'k_nowhere'), { requests: ['req_1', 'req_2'], usage: ['req_1', 'req_2'], cost: 30 });
  t.equal(await allTime(store), 2);
});

t.test('a pair whose first transaction rolled back is written again by its next row', async (t) => {
  const store = memoryStore(t);
  const key = keyRecord('k_again', 'acme');
  const fail = (write: () => void): void => {
    t.throws(() => store.db.transaction(() => {
      write();
      throw new Error('the outer transaction rolls back');
    })());
  };
  // the one-call path, then the batch path, each inside an outer transaction that rolls back
  const first = store.ledger.reserve({ requestId: 'req_lost_1', key, amount: 100 });
  fail(() => store.ledger.settle(first, usageRecord('req_lost_1', key, 10)));
  const second = await store.ledger.reserveSoon({ requestId: 'req_lost_2', key, amount: 100 });
  const ended = store.ledger.endSoon(second, usageRecord('req_lost_2', key, 10), true);
  fail(() => store.ledger.flush());
  await ended;
  t.same(store.db.prepare("SELECT key_id FROM key_orgs WHERE key_id = 'k_again'").all(), [], 'rolled back with the rows');
  t.equal(store.db.prepare("SELECT count(*) AS n FROM usage").pluck().get(), 0);

  const third = await store.ledger.reserveSoon({ requestId: 'req_3', key, amount: 100 });
  t.equal(await store.ledger.endSoon(third, usageRecord('req_3', key, 40), true), true);
  t.same(await byKey(store, 'k_again'), { requests: ['req_3'], usage: ['req_3'], cost: 40 });
});

function versionSixFile(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'key-org-pairs-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.db');
  const old = new Database(file);
  old.pragma('journal_mode = WAL');
  for (const sql of MIGRATIONS.slice(0, 6)) old.exec(sql);
  old.pragma('user_version = 6');
  old.exec(`INSERT INTO orgs (id, balance) VALUES ('acme', 100000), ('beta', 100000);
    INSERT INTO keys (id, hash, org) VALUES ('k_before', 'hb', 'acme');`);
  old.close();
  return file;
}

t.test('rows another writer adds without the ledger (the previous version) are listed by key', async (t) => {
  const file = versionSixFile(t);
  const store = new Store(`sqlite:${file}`);
  t.teardown(() => store.close());
  // a second connection writes as a process of the previous version does: its keys, and its usage
  // rows with the key's pair and nothing else (it had the usage trigger that migration 7 dropped)
  const other = new Database(file);
  t.teardown(() => other.close());
  const usage = other.prepare(`INSERT INTO usage (request_id, key_id, org, endpoint, cost, status, latency_ms, created_at) VALUES (?, ?, ?, 'chat', 5, 200, 1, ?)`);
  usage.run('req_before', 'k_before', 'acme', Date.now());
  other.exec("INSERT INTO keys (id, hash, org) VALUES ('k_after', 'ha', 'acme')");
  usage.run('req_after', 'k_after', 'acme', Date.now());
  other.exec("UPDATE keys SET org = 'beta' WHERE id = 'k_after'");
  usage.run('req_moved', 'k_after', 'beta', Date.now());

  t.same(await byKey(store, 'k_before'), { requests: ['req_before'], usage: ['req_before'], cost: 5 });
  t.same(await byKey(store, 'k_after'), { requests: ['req_after', 'req_moved'], usage: ['req_after', 'req_moved'], cost: 10 });
  t.equal(await allTime(store), 3);
  t.same((await store.admin.usage({ org: 'beta' }, 'key')).map((g) => g.group), ['k_after']);
});
