// Seeding again on a live store (a reload) takes effect at the next lookup: the key cache does not
// keep serving a rotated or removed secret. Usage rows are never touched by a seed.
import t from 'tap';
import type { Config } from '../../lib/config.js';
import { hashKey, Store } from '../../lib/store/store.js';
import { testConfig } from '../helpers/context.js';

const withKeys = (keys: Record<string, unknown>[]): Config => testConfig({ keys });

t.test('rotation and removal on a live store apply at once', async (t) => {
  const store = new Store('sqlite::memory:');
  t.teardown(() => store.close());
  store.seed(withKeys([{ id: 'a', key: 'sk-a-one', org: 'acme' }, { id: 'b', key: 'sk-b-one', org: 'acme' }]));
  t.equal(store.findKey('sk-a-one')?.id, 'a');
  t.equal(store.findKey('sk-b-one')?.id, 'b');
  t.equal(store.findKey('sk-a-two'), null, 'a miss is cached too');

  store.seed(withKeys([{ id: 'a', key: 'sk-a-two', org: 'acme' }]));
  t.equal(store.findKey('sk-a-one'), null, 'the rotated-out secret is refused');
  t.equal(store.findKey('sk-a-two')?.id, 'a', 'the new secret works under the same id');
  t.equal(store.findKey('sk-b-one'), null, 'the removed key is refused');

  store.seed(withKeys([{ id: 'b', key: 'sk-b-one', org: 'acme' }]));
  t.equal(store.findKey('sk-b-one')?.id, 'b', 'listed again, the key is enabled again');
  t.equal(store.findKey('sk-a-two'), null);
});

t.test('two entries under one id are refused, and the store is left as it was', async (t) => {
  const store = new Store('sqlite::memory:');
  t.teardown(() => store.close());
  store.seed(withKeys([{ id: 'a', key: 'sk-a-one', org: 'acme' }]));
  t.throws(() => store.seed(withKeys([{ id: 'a', key: 'sk-a-two', org: 'acme' }, { id: 'a', key: 'sk-a-three', org: 'acme' }])), {
    code: 'GW_ERR_CONFIG_INVALID',
    message: /keys\[1\]\.id: (key id "a" is listed twice|duplicate key id "a")/,
  });
  t.equal(store.findKey('sk-a-one')?.id, 'a');
});

t.test('a key made outside the config is neither taken over nor disabled by a seed', async (t) => {
  const store = new Store('sqlite::memory:');
  t.teardown(() => store.close());
  store.seed(withKeys([]));
  store.db
    .prepare(`INSERT INTO keys (id, hash, org, source) VALUES ('key_admin', ?, 'acme', 'admin')`)
    .run(hashKey('sk-made-by-admin'));
  t.throws(() => store.seed(withKeys([{ id: 'key_admin', key: 'sk-other-0001', org: 'acme' }])), { code: 'GW_ERR_CONFIG_INVALID', message: /keys\[0\]: id "key_admin" belongs to a key made outside the config/ });
  t.throws(() => store.seed(withKeys([{ id: 'mine', key: 'sk-made-by-admin', org: 'acme' }])), { code: 'GW_ERR_CONFIG_INVALID', message: /this secret belongs to key "key_admin"/ });
  store.seed(withKeys([{ id: 'mine', key: 'sk-mine-0001', org: 'acme' }]));
  t.equal(store.findKey('sk-made-by-admin')?.id, 'key_admin', 'still served');
});
