// A key revoked on one replica is refused by every other within a second, without Redis: on
// PostgreSQL through LISTEN/NOTIFY (and a look at key_epoch), on a shared SQLite file through the
// key_epoch counter its trigger bumps. Two bin/gateway processes on one store (SQLite by default,
// PostgreSQL under `npm run test:postgres`); one drops the key from its config and reloads (SIGHUP).
import { writeFileSync } from 'node:fs';
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { fileStoreConfig, headersFor, sleep } from '../helpers/billing.js';

t.test('a key revoked on one replica is refused by the other within a second', async (t) => {
  const SECOND = 'sk-test-second-0001';
  const store = fileStoreConfig([], { keys: [...(baseConfig().keys as object[]), { id: 'second', key: SECOND, org: 'acme' }] });
  const config = store.config;
  const replicas: RunningGateway[] = await Promise.all([startGateway(config), startGateway(config)]);
  t.teardown(async () => {
    for (const r of replicas) await r.stop('SIGKILL');
  });
  const [a, b] = replicas as [RunningGateway, RunningGateway];
  const ask = async (gw: RunningGateway, key: string): Promise<number> => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: headersFor(key),
      body: JSON.stringify({ model: 'anthropic/claude-opus-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.text();
    return res.status;
  };
  t.equal(await ask(b, SECOND), 200, 'the second key works on replica b');

  // replica a drops the key from its config and reloads: the key is disabled in the database
  writeFileSync(a.configFile, JSON.stringify({ ...config, keys: baseConfig().keys }));
  a.proc.kill('SIGHUP');
  const deadline = Date.now() + 10_000;
  while (!a.logs.some((l) => l.msg === 'config reloaded') && Date.now() < deadline) await sleep(10);
  const reloaded = Date.now();
  t.ok(a.logs.some((l) => l.msg === 'config reloaded'), 'replica a reloaded');
  let refusedAfter = -1;
  while (Date.now() - reloaded < 3000) {
    if ((await ask(b, SECOND)) === 401) {
      refusedAfter = Date.now() - reloaded;
      break;
    }
    await sleep(20);
  }
  t.ok(refusedAfter >= 0 && refusedAfter < 1000, `replica b refuses the revoked key within a second (${refusedAfter} ms)`);
  t.equal(await ask(a, SECOND), 401, 'and replica a at once');
  t.equal(await ask(b, TEST_KEY), 200, 'the other key still works');
});
