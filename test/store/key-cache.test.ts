// The store remembers a key found by the credential as presented (sqlite-keys.ts, found-keys.ts), so a
// known key's request skips the SHA-256. It must never answer a revoked, removed, rotated or changed
// key: every way the keys change clears it, and each answer is the one a lookup by hash alone (a
// fresh store on the same file) gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { Store } from '../../lib/store/store.js';
import type { KeyRecord } from '../../lib/store/types.js';
import { adminChangesApplyAtOnce, withKeys } from './key-cache-checks.js';

function tempFile(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-key-cache-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'store.db')}`;
}

/** What a lookup by hash alone answers: a store opened afresh on the same file. */
function byHashAlone(url: string, presented: string): KeyRecord | null {
  const fresh = new Store(url);
  try {
    return fresh.findKey(presented);
  } finally {
    fresh.close();
  }
}

t.test('a key found is answered from memory, as the hash lookup answers it', async (t) => {
  const url = tempFile(t);
  const store = new Store(url);
  t.teardown(() => store.close());
  store.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme', project: 'web', environment: 'prod', scopes: ['chat.completions'], models: ['anthropic/*'] }]));
  const first = store.findKey('sk-a-0001');
  t.equal(first?.id, 'a');
  t.equal(store.findKey('sk-a-0001'), first, 'the second lookup gives the same record');
  t.same(store.findKey('sk-a-0001'), byHashAlone(url, 'sk-a-0001'), 'what the hash lookup gives');
  t.equal(store.findKey('sk-a-0002'), null, 'a wrong key is refused');
  t.equal(store.findKey('sk-a-0001 '), null, 'so is the key with a character more');
  t.equal(store.findKey('sk-a-000'), null, 'or less');
  t.equal(store.findKey('sk-a-0001')?.id, 'a', 'and the key still works after them');
});

t.test('a reload that rotates, removes or changes a key applies at the next lookup', async (t) => {
  const url = tempFile(t);
  const store = new Store(url);
  t.teardown(() => store.close());
  store.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme' }, { id: 'b', key: 'sk-b-0001', org: 'acme' }]));
  for (let i = 0; i < 3; i++) t.equal(store.findKey('sk-a-0001')?.id, 'a');
  t.equal(store.findKey('sk-b-0001')?.id, 'b');

  store.seed(withKeys([{ id: 'a', key: 'sk-a-0002', org: 'acme', models: ['anthropic/claude-opus-5'] }]));
  t.equal(store.findKey('sk-a-0001'), null, 'the rotated-out secret is refused');
  t.equal(store.findKey('sk-b-0001'), null, 'the removed key is refused');
  t.same(store.findKey('sk-a-0002')?.models, ['anthropic/claude-opus-5'], 'the new secret has the new attributes');

  store.seed(withKeys([{ id: 'a', key: 'sk-a-0002', org: 'acme', models: [] }]));
  t.same(store.findKey('sk-a-0002')?.models, [], 'a changed attribute is seen at once');
  t.same(store.findKey('sk-a-0002'), byHashAlone(url, 'sk-a-0002'));
});

t.test('an admin revocation or change applies at once', async (t) => {
  const url = tempFile(t);
  const store = new Store(url);
  t.teardown(() => store.close());
  store.seed(withKeys([]));
  await adminChangesApplyAtOnce(t, store, (presented) => byHashAlone(url, presented));
});

t.test("another process's change is seen through key_epoch within a second", async (t) => {
  const url = tempFile(t);
  const config = withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme' }]);
  const serving = new Store(url);
  t.teardown(() => serving.close());
  serving.seed(config);
  const quiet = (): void => undefined;
  serving.startServing({ info: quiet, warn: quiet, error: quiet });
  for (let i = 0; i < 3; i++) t.equal(serving.findKey('sk-a-0001')?.id, 'a');

  const other = new Store(url);
  other.seed(withKeys([]));
  other.close();
  const deadline = Date.now() + 1000;
  while (serving.findKey('sk-a-0001') !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.equal(serving.findKey('sk-a-0001'), null, 'the key removed by the other process is refused');
});

t.test('forgetKeys (the bus) drops what was remembered', async (t) => {
  const store = new Store('sqlite::memory:');
  t.teardown(() => store.close());
  store.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme' }]));
  t.equal(store.findKey('sk-a-0001')?.id, 'a');
  // a change made behind the store's back (as another process's, announced on the bus)
  store.db.prepare('UPDATE keys SET disabled = 1 WHERE id = ?').run('a');
  store.forgetKeys();
  t.equal(store.findKey('sk-a-0001'), null, 'refused once forgotten');
});

t.test('wrong keys do not displace the known ones, and are never answered as found', async (t) => {
  const store = new Store('sqlite::memory:');
  t.teardown(() => store.close());
  store.seed(withKeys([{ id: 'a', key: 'sk-a-0001', org: 'acme' }]));
  t.equal(store.findKey('sk-a-0001')?.id, 'a');
  let found = 0;
  for (let i = 0; i < 20_000; i++) if (store.findKey(`sk-a-${i}`) !== null) found++;
  t.equal(found, 0, 'no wrong key is found');
  t.equal(store.findKey('sk-a-0001')?.id, 'a', 'the known key still works');
});
