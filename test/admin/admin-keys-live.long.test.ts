// A key made by the admin API answers at once, and once revoked is refused within a second on every
// process sharing the store: two bin/gateway processes on one SQLite file (PostgreSQL database
// under `npm run test:postgres`). Changes to scopes and models apply at once; admin keys and orgs
// survive the config's reconcile on SIGHUP.
import t from 'tap';
import { sleep } from '../helpers/billing.js';
import { adminCall, askMessages, startAdminGateway } from '../helpers/admin.js';
import { startGateway } from '../helpers/gateway.js';

t.test('a created key works at once; revoked, it is refused within a second on both processes', async (t) => {
  const a = await startAdminGateway();
  const b = await startGateway(a.store.config);
  t.teardown(async () => {
    await a.gw.stop('SIGKILL');
    await b.stop('SIGKILL');
  });
  const created = await a.call('POST', '/keys', { org: 'acme', name: 'live' });
  t.equal(created.status, 201);
  const { key, id } = created.body as { key: string; id: string };
  t.equal(await askMessages(a.gw.url, key), 200, 'the new key answers at once on the process that made it');
  let seenOnB = -1;
  const made = Date.now();
  while (Date.now() - made < 3000) {
    if ((await askMessages(b.url, key)) === 200) {
      seenOnB = Date.now() - made;
      break;
    }
    await sleep(20);
  }
  t.ok(seenOnB >= 0 && seenOnB < 1000, `and on the other process within a second (${seenOnB} ms)`);

  const revoked = await adminCall(a.gw.url, 'DELETE', `/keys/${id}`);
  const at = Date.now();
  t.equal(revoked.status, 200);
  t.equal(await askMessages(a.gw.url, key), 401, 'refused at once where it was revoked');
  let refusedOnB = -1;
  while (Date.now() - at < 3000) {
    if ((await askMessages(b.url, key)) === 401) {
      refusedOnB = Date.now() - at;
      break;
    }
    await sleep(20);
  }
  t.ok(refusedOnB >= 0 && refusedOnB < 1000, `refused on the other process within a second (${refusedOnB} ms)`);
});

t.test('PATCH of scopes and models applies at once', async (t) => {
  const a = await startAdminGateway();
  t.teardown(() => a.gw.stop('SIGKILL'));
  const { key, id } = (await a.call('POST', '/keys', { org: 'acme' })).body as { key: string; id: string };
  t.equal(await askMessages(a.gw.url, key), 200);
  await a.call('PATCH', `/keys/${id}`, { scopes: ['chat.completions'] });
  t.equal(await askMessages(a.gw.url, key), 403, 'the Messages endpoint is out of scope now');
  await a.call('PATCH', `/keys/${id}`, { scopes: [], models: ['anthropic/claude-sonnet-5'] });
  t.equal(await askMessages(a.gw.url, key), 403, 'the model is outside the allowlist now');
  await a.call('PATCH', `/keys/${id}`, { models: [] });
  t.equal(await askMessages(a.gw.url, key), 200, 'every model again');
});

t.test('admin-made keys and organizations survive the config reconcile on SIGHUP', async (t) => {
  const a = await startAdminGateway();
  t.teardown(() => a.gw.stop('SIGKILL'));
  await a.call('POST', '/orgs', { id: 'made', credits: 5 });
  await a.call('POST', '/orgs/made/projects', { id: 'p' });
  const { key } = (await a.call('POST', '/keys', { org: 'made', project: 'p' })).body as { key: string };
  t.equal(await askMessages(a.gw.url, key), 200);
  a.gw.proc.kill('SIGHUP');
  const deadline = Date.now() + 10_000;
  while (!a.gw.logs.some((l) => l.msg === 'config reloaded') && Date.now() < deadline) await sleep(10);
  t.ok(a.gw.logs.some((l) => l.msg === 'config reloaded'), 'reloaded');
  t.equal(await askMessages(a.gw.url, key), 200, 'the admin key still works');
  const org = await a.call('GET', '/orgs/made');
  t.match(org.body, { id: 'made', source: 'admin', projects: [{ id: 'p' }] });
  t.match((await a.call('GET', '/keys?org=made')).body.data, [{ revoked: false, source: 'admin' }]);
});
