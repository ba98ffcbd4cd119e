// The PostgreSQL store remembers a key found by the credential as presented (pg-store.ts, `found`,
// found-keys.ts), as the SQLite store does (key-cache.test.ts), so a known key's request skips the
// SHA-256. It must never answer a revoked, removed, rotated or changed key: every replacement of the
// key map (a reload, an admin change, another replica's change through NOTIFY / key_epoch) clears
// it, and each answer is the one a lookup by hash alone (a fresh store on the same database) gives.
// Runs in the plain `npx tap` whenever PostgreSQL is installed (a server of its own, or the one
// GATEWAY_TEST_PG_URL names), as replicas-postgres.long.test.ts does; skipped otherwise.
import t, { type Test } from 'tap';
import { hashKey } from '../../lib/store/key-rows.js';
import { PgStore } from '../../lib/store/pg/pg-store.js';
import type { KeyRecord } from '../../lib/store/types.js';
import { postgresBin, sharedPostgres, type PgServer } from '../helpers/postgres.js';
import { adminChangesApplyAtOnce, audit, withKeys } from './key-cache-checks.js';

const quiet = (): void => undefined;
const log = { info: quiet, warn: quiet, error: quiet };

async function open(t: Test, url: string): Promise<PgStore> {
  const store = await PgStore.open(url, { pool: 3 });
  t.teardown(() => store.close());
  return store;
}

/** What a lookup by hash alone answers: a store opened afresh on the same database. */
async function byHashAlone(url: string, presented: string): Promise<KeyRecord | null> {
  const fresh = await PgStore.open(url, { pool: 2 });
  try {
    return fresh.findKey(presented);
  } finally {
    await fresh.close();
  }
}

const skip = postgresBin() === null ? 'PostgreSQL is not installed' : false;

t.test('on PostgreSQL', { skip }, async (t) => {
  const pg: PgServer = await sharedPostgres();
  t.teardown(() => pg.stop());

  t.test('a key found is answered from memory, as the hash lookup answers it', async (t) => {
    const url = pg.createDatabase();
    const store = await open(t, url);
    await store.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme', project: 'web', environment: 'prod', scopes: ['chat.completions'], models: ['anthropic/*'] }]));
    const first = store.findKey('sk-a-0001');
    t.equal(first?.id, 'a');
    t.equal(store.findKey('sk-a-0001'), first, 'the second lookup gives the same record');
    t.same(store.findKey('sk-a-0001'), await byHashAlone(url, 'sk-a-0001'), 'what the hash lookup gives');
    t.equal(store.findKey('sk-a-0002'), null, 'a wrong key is refused');
    t.equal(store.findKey('sk-a-0001 '), null, 'so is the key with a character more');
    t.equal(store.findKey('sk-a-000'), null, 'or less');
    t.equal(store.findKey('sk-a-0001')?.id, 'a', 'and the key still works after them');
  });

  t.test('a reload that rotates, removes or changes a key applies at the next lookup', async (t) => {
    const url = pg.createDatabase();
    const store = await open(t, url);
    await store.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme' }, { id: 'b', key: 'sk-b-0001', org: 'acme' }]));
    for (let i = 0; i < 3; i++) t.equal(store.findKey('sk-a-0001')?.id, 'a');
    t.equal(store.findKey('sk-b-0001')?.id, 'b');

    await store.seed(withKeys([{ id: 'a', key: 'sk-a-0002', org: 'acme', models: ['anthropic/claude-opus-5'] }]));
    t.equal(store.findKey('sk-a-0001'), null, 'the rotated-out secret is refused');
    t.equal(store.findKey('sk-b-0001'), null, 'the removed key is refused');
    t.same(store.findKey('sk-a-0002')?.models, ['anthropic/claude-opus-5'], 'the new secret has the new attributes');

    await store.seed(withKeys([{ id: 'a', key: 'sk-a-0002', org: 'acme', models: [] }]));
    t.same(store.findKey('sk-a-0002')?.models, [], 'a changed attribute is seen at once');
    t.same(store.findKey('sk-a-0002'), await byHashAlone(url, 'sk-a-0002'));
  });

  t.test('an admin revocation or change applies at once', async (t) => {
    const url = pg.createDatabase();
    const store = await open(t, url);
    await store.seed(withKeys([]));
    await adminChangesApplyAtOnce(t, store, (presented) => byHashAlone(url, presented));
  });

  t.test("another replica's change is seen through NOTIFY / key_epoch within a second", async (t) => {
    const url = pg.createDatabase();
    const serving = await open(t, url);
    await serving.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme' }]));
    await serving.startServing(log);
    for (let i = 0; i < 3; i++) t.equal(serving.findKey('sk-a-0001')?.id, 'a');

    const other = await PgStore.open(url, { pool: 2 });
    await other.seed(withKeys([]));
    await other.close();
    const deadline = Date.now() + 1000;
    while (serving.findKey('sk-a-0001') !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.equal(serving.findKey('sk-a-0001'), null, 'the key removed by the other replica is refused');

    // admin changes on another replica (its own map reloaded there; here through NOTIFY)
    const admin = await PgStore.open(url, { pool: 2 });
    t.teardown(() => admin.close());
    const key = { id: 'key_y', org: 'acme', project: null, environment: null, name: null, scopes: [], models: [], spendCap: null, rpm: null, tpm: null, hash: hashKey('sk-y-0001'), hint: 'sk-gw-…0001' };
    await admin.admin.createKey(key, audit);
    const seen = async (ok: () => boolean): Promise<void> => {
      const until = Date.now() + 1000;
      while (!ok() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    };
    await seen(() => serving.findKey('sk-y-0001') !== null);
    t.equal(serving.findKey('sk-y-0001')?.spendCap, null, "the other replica's new key is served");
    await admin.admin.updateKey('key_y', { spendCap: 4000 }, audit);
    await seen(() => serving.findKey('sk-y-0001')?.spendCap === 4000);
    t.equal(serving.findKey('sk-y-0001')?.spendCap, 4000, "the other replica's new cap is seen");
    await admin.admin.revokeKey('key_y', audit);
    await seen(() => serving.findKey('sk-y-0001') === null);
    t.equal(serving.findKey('sk-y-0001'), null, 'the key the other replica revoked is refused');
  });

  t.test('forgetKeys (the bus) drops what was remembered; lookups answer as the key map does', async (t) => {
    const url = pg.createDatabase();
    const store = await open(t, url);
    await store.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme' }]));
    const first = store.findKey('sk-a-0001');
    t.equal(first?.id, 'a');
    store.forgetKeys();
    t.equal(store.findKey('sk-a-0001'), first, 'found again by hash: the record of the key map');
    t.equal(store.findKey('sk-a-0002'), null);
  });

  t.test('wrong keys do not displace the known ones, and are never answered as found', async (t) => {
    const url = pg.createDatabase();
    const store = await open(t, url);
    await store.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme' }]));
    t.equal(store.findKey('sk-a-0001')?.id, 'a');
    let found = 0;
    for (let i = 0; i < 20_000; i++) if (store.findKey(`sk-a-${i}`) !== null) found++;
    t.equal(found, 0, 'no wrong key is found');
    t.equal(store.findKey('sk-a-0001')?.id, 'a', 'the known key still works');
  });
});
