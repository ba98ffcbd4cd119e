// GET /healthz (the process serves) and GET /readyz (it can take a request: the store takes writes),
// without a key. A settle the store refuses makes /readyz answer 503 naming the store until it is
// written; /healthz stays 200 throughout. (Redis readiness: test/limits/redis-limits.long.test.ts.)
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { billModel, fileStoreConfig, headersFor, TEST_KEY } from '../helpers/billing.js';
import { eventually } from '../helpers/messages.js';

t.test('healthz and readyz answer without a key; readyz fails while a settle waits for the store', async (t) => {
  const store = fileStoreConfig([billModel('bill/slow', 'claude-bill;delay=40;deltas=12')]);
  const fault = join(store.dir, 'store-fault');
  const gw = await startGateway(store.config, { env: { GATEWAY_STORE_FAULT_FILE: fault } });
  t.teardown(() => gw.stop('SIGKILL'));
  const health = await fetch(`${gw.url}/healthz`);
  t.equal(health.status, 200);
  t.same(await health.json(), { status: 'ok' });
  const ready = await fetch(`${gw.url}/readyz`);
  t.equal(ready.status, 200);
  t.equal(ready.headers.get('content-type'), 'application/json');
  t.same(await ready.json(), { status: 'ready', checks: { store: 'ok' } });

  // the hold commits before the fault; the settle at the end of the answer is refused
  const answer = fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: headersFor(TEST_KEY),
    body: JSON.stringify({ model: 'bill/slow', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  const res = await answer;
  const reader = res.body!.getReader();
  await reader.read();
  writeFileSync(fault, 'readonly');
  while (!(await reader.read()).done);
  const notReady = await eventually(async () => {
    const r = await fetch(`${gw.url}/readyz`);
    return r.status === 503 ? ((await r.json()) as Record<string, unknown>) : null;
  });
  t.match(notReady, { status: 'not ready', checks: { store: /store/ } });
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200, 'alive all the same');

  rmSync(fault);
  t.ok(await eventually(async () => (await fetch(`${gw.url}/readyz`)).status === 200, 10_000), 'ready again once the settle is written');
});
