// What the SQLite and PostgreSQL stores' found-key caches are both held to (key-cache.test.ts,
// key-cache-pg.test.ts): the config and audit entry the tests seed with, and the admin scenario, run
// the same on either store.
import type { Test } from 'tap';
import type { Config } from '../../lib/config.js';
import type { AdminOps } from '../../lib/store/admin-ops.js';
import { hashKey } from '../../lib/store/key-rows.js';
import type { KeyRecord } from '../../lib/store/types.js';
import { testConfig } from '../helpers/context.js';

export const withKeys = (keys: Record<string, unknown>[]): Config =>
  testConfig({ keys, orgs: [{ id: 'acme', credits: 100, projects: [{ id: 'web', environments: [{ id: 'prod' }] }] }] });
export const audit = { actor: 'test', action: 'test', target: 'test', detail: {} };

interface KeyedStore {
  readonly admin: AdminOps;
  findKey(presented: string): KeyRecord | null;
}

/**
 * A key created, changed and revoked through the admin API is answered as changed at once, and as a
 * lookup by hash alone (`byHashAlone`: a fresh store on the same data) answers it.
 */
export async function adminChangesApplyAtOnce(
  t: Test,
  store: KeyedStore,
  byHashAlone: (presented: string) => KeyRecord | null | Promise<KeyRecord | null>,
): Promise<void> {
  const key = { id: 'key_x', org: 'acme', project: null, environment: null, name: null, scopes: [], models: [], spendCap: null, rpm: null, tpm: null, hash: hashKey('sk-x-0001'), hint: 'sk-gw-…0001' };
  await store.admin.createKey(key, audit);
  t.equal(store.findKey('sk-x-0001')?.id, 'key_x');
  t.equal(store.findKey('sk-x-0001')?.spendCap, null);

  await store.admin.updateKey('key_x', { spendCap: 5000, rateLimit: { rpm: 7, tpm: null } }, audit);
  t.equal(store.findKey('sk-x-0001')?.spendCap, 5000, 'the new cap');
  t.same(store.findKey('sk-x-0001')?.rateLimit, { rpm: 7, tpm: null }, 'the new rate limit');
  t.same(store.findKey('sk-x-0001'), await byHashAlone('sk-x-0001'));

  await store.admin.revokeKey('key_x', audit);
  t.equal(store.findKey('sk-x-0001'), null, 'the revoked key is refused');
  t.equal(await byHashAlone('sk-x-0001'), null);
}
