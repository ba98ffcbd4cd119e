// What the checkpoint tests share: a seeded store in a file of its own, and requests written to it
// as the serving gateway writes them (each a hold and a settle, its own commits).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { finalizeConfig } from '../../lib/config.js';
import type { KeyRecord } from '../../lib/store/types.js';
import { Store } from '../../lib/store/store.js';

export const config = finalizeConfig(
  {
    providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
    models: [{ id: 'sim/m', deployments: [{ provider: 'sim', model: 'm' }], pricing: { input: 1, output: 1 } }],
    orgs: [{ id: 'acme', credits: 1000 }],
    keys: [{ id: 'k', key: 'sk-checkpoint-test', org: 'acme' }],
  },
  {},
);

/** A seeded store in a file of its own, removed after the test. */
export function seededFileStore(t: Test): { file: string; store: Store } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-ckpt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'g.db');
  const store = new Store(`sqlite:${file}`);
  store.seed(config);
  return { file, store };
}

/** The test key, as the store found it. */
export const testKey = (store: Store): KeyRecord => store.findKey('sk-checkpoint-test')!;

/** One request held and settled (cost 2 units). */
export async function serveOne(store: Store, key: KeyRecord, requestId: string): Promise<void> {
  const r = await store.ledger.reserveSoon({ requestId, key, amount: 1000 });
  await store.ledger.endSoon(r, {
    requestId: r.requestId, keyId: 'k', org: 'acme', project: null, environment: null, endpoint: 'messages',
    modelRequested: 'sim/m', modelServed: 'sim/m', provider: 'sim', inputTokens: 1, outputTokens: 1, cacheReadTokens: 0,
    cacheWriteTokens: 0, reasoningTokens: 0, webSearches: 0, audioSeconds: null, cost: 2, callName: null, endUserId: null,
    status: 200, errorCode: null, latencyMs: 1,
  }, true);
}
