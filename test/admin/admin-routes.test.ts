// Every /admin/v1 route and its errors through the real bin/gateway, on a file store (SQLite, or
// PostgreSQL under `npm run test:postgres`): the credential (401 without or with a wrong admin key,
// 403 for an API key), 404/405, 400 naming the exact field path, unknown fields refused, 409 on a
// duplicate or on what the config owns, and credits that may not go below zero (nothing changes).
import t from 'tap';
import { TEST_KEY } from '../helpers/gateway.js';
import { LedgerView } from '../helpers/billing.js';
import { startAdminGateway, type AdminGateway } from '../helpers/admin.js';

let admin: AdminGateway;
t.before(async () => {
  admin = await startAdminGateway();
});
t.teardown(() => admin.gw.stop());

const ERROR_KEYS = ['code', 'message', 'param', 'type'];

t.test('the admin credential is required, and an API key is refused', async (t) => {
  for (const [auth, status, code] of [
    [null, 401, 'unauthorized'],
    ['not-the-admin-key-000', 401, 'unauthorized'],
    [TEST_KEY, 403, 'endpoint_not_allowed'],
  ] as const) {
    for (const path of ['/orgs', '/keys', '/usage', '/requests', '/audit', '/nowhere']) {
      const r = await admin.call('GET', path, undefined, auth);
      t.equal(r.status, status, `${path} with ${auth ?? 'no key'}`);
      t.equal(r.body.error.code, code);
      t.same(Object.keys(r.body.error).sort(), ERROR_KEYS, 'the OpenAI envelope with type and param');
    }
  }
  const refused = await fetch(`${admin.gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', authorization: 'Bearer admin-test-key-0123456789' },
    body: JSON.stringify({ model: 'anthropic/claude-opus-5', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(refused.status, 403, 'the admin key is refused on an API route');
});

t.test('404 and 405 in the envelope', async (t) => {
  const missing = await admin.call('GET', '/orgs/acme/nothing');
  t.equal(missing.status, 404);
  t.equal(missing.body.error.type, 'not_found_error');
  const wrong = await admin.call('PUT', '/orgs');
  t.equal(wrong.status, 405);
  t.equal(wrong.headers.get('allow'), 'GET, POST');
  t.equal((await admin.call('GET', '/orgs/nobody')).status, 404, 'unknown organization');
  t.equal((await admin.call('GET', '/keys/key_nobody')).status, 404, 'unknown key');
  t.equal((await admin.call('GET', '/orgs/nobody/projects')).status, 404);
  t.equal((await admin.call('GET', '/orgs/acme/projects/nothing/environments')).status, 404);
  t.equal((await admin.call('POST', '/orgs/nobody/credits', { usd: 1, reason: 'x' })).status, 404);
});

t.test('organizations: list, create, get, update; 409 on a duplicate and on a config org', async (t) => {
  const listed = await admin.call('GET', '/orgs');
  t.equal(listed.status, 200);
  t.equal(listed.body.object, 'list');
  t.match(listed.body.data, [{ id: 'acme', balance: 100, spendCap: null, spent: 0, reserved: 0, source: 'config' }]);
  const created = await admin.call('POST', '/orgs', { id: 'beta', credits: 12.5, spendCap: 10 });
  t.equal(created.status, 201);
  t.same(created.body, { id: 'beta', balance: 12.5, spendCap: 10, spent: 0, reserved: 0, source: 'admin' });
  const again = await admin.call('POST', '/orgs', { id: 'beta' });
  t.equal(again.status, 409);
  t.equal(again.body.error.code, 'conflict');
  const patched = await admin.call('PATCH', '/orgs/beta', { spendCap: null });
  t.equal(patched.status, 200);
  t.equal(patched.body.spendCap, null);
  t.equal((await admin.call('PATCH', '/orgs/acme', { spendCap: 1 })).status, 409, 'the config owns acme');
  const got = await admin.call('GET', '/orgs/acme');
  t.match(got.body, { id: 'acme', projects: [{ id: 'web', org: 'acme', environments: [{ id: 'production', org: 'acme', project: 'web' }] }] });
});

t.test('projects and environments', async (t) => {
  const p = await admin.call('POST', '/orgs/beta/projects', { id: 'app', spendCap: 5 });
  t.equal(p.status, 201);
  t.same(p.body, { id: 'app', org: 'beta', spendCap: 5, spent: 0, reserved: 0, environments: [] });
  t.equal((await admin.call('POST', '/orgs/beta/projects', { id: 'app' })).status, 409);
  const e = await admin.call('POST', '/orgs/beta/projects/app/environments', { id: 'prod' });
  t.equal(e.status, 201);
  t.same(e.body, { id: 'prod', org: 'beta', project: 'app', spendCap: null, spent: 0, reserved: 0 });
  t.equal((await admin.call('POST', '/orgs/beta/projects/app/environments', { id: 'prod' })).status, 409);
  t.equal((await admin.call('POST', '/orgs/beta/projects/none/environments', { id: 'prod' })).status, 404);
  const envs = await admin.call('GET', '/orgs/beta/projects/app/environments');
  t.same(envs.body.data.map((x: { id: string }) => x.id), ['prod']);
  const projects = await admin.call('GET', '/orgs/beta/projects');
  t.match(projects.body.data, [{ id: 'app', environments: [{ id: 'prod' }] }]);
});

t.test('bodies are validated: 400 naming the exact field path, unknown fields refused, nothing written', async (t) => {
  const cases: [string, string, unknown, string][] = [
    ['POST', '/orgs', { id: 'x y' }, 'id'],
    ['POST', '/orgs', {}, 'id'],
    ['POST', '/orgs', { id: 'gamma', credits: -1 }, 'credits'],
    ['POST', '/orgs', { id: 'gamma', extra: 1 }, 'extra'],
    ['PATCH', '/orgs/beta', { spendCap: 'lots' }, 'spendCap'],
    ['POST', '/orgs/beta/credits', { usd: 0, reason: 'x' }, 'usd'],
    ['POST', '/orgs/beta/credits', { usd: 1 }, 'reason'],
    ['POST', '/orgs/beta/projects', { id: 'p', spendCap: -2 }, 'spendCap'],
    ['POST', '/keys', { org: 'beta', scopes: ['messages', 'email'] }, 'scopes[1]'],
    ['POST', '/keys', { org: 'beta', rateLimit: { rpm: 0 } }, 'rateLimit.rpm'],
    ['POST', '/keys', { org: 'beta', rateLimit: { rps: 3 } }, 'rateLimit.rps'],
    ['POST', '/keys', { org: 'beta', models: ['anthropic/claude-opus-5', 'anthropic/claude-opus-9'] }, 'models[1]'],
    ['POST', '/keys', { org: 'beta', models: ['nothing/*'] }, 'models[0]'],
    ['POST', '/keys', { org: 'nobody' }, 'org'],
    ['POST', '/keys', { org: 'beta', project: 'none' }, 'project'],
    ['POST', '/keys', { org: 'beta', project: 'app', environment: 'none' }, 'environment'],
    ['POST', '/keys', { org: 'beta', environment: 'prod' }, 'environment'],
    ['POST', '/keys', { org: 'beta', secret: 'mine' }, 'secret'],
  ];
  const before = (await admin.call('GET', '/audit')).body.data.length;
  for (const [method, path, body, param] of cases) {
    const r = await admin.call(method, path, body);
    t.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
    t.equal(r.body.error.param, param, `param ${param}`);
    t.equal(r.body.error.type, 'invalid_request_error');
  }
  const notJson = await admin.call('POST', '/orgs', '{"id":');
  t.equal(notJson.status, 400);
  const notObject = await admin.call('POST', '/orgs', '[1]');
  t.equal(notObject.status, 400);
  t.equal((await admin.call('GET', '/keys?owner=beta')).body.error.param, 'owner', 'unknown query parameter');
  t.equal((await admin.call('GET', '/orgs')).body.data.length, 2, 'no organization was created');
  t.equal((await admin.call('GET', '/keys?org=beta')).body.data.length, 0, 'no key was created');
  t.equal((await admin.call('GET', '/audit')).body.data.length, before, 'nothing was audited');
});

t.test('credits: added with a reason; a negative amount may not go below zero (nothing changes)', async (t) => {
  const ledger = new LedgerView(admin.store.db);
  t.teardown(() => ledger.close());
  const added = await admin.call('POST', '/orgs/beta/credits', { usd: 2.25, reason: 'invoice 7' });
  t.equal(added.status, 200);
  t.same(added.body, { org: 'beta', balance: 14.75, usd: 2.25, reason: 'invoice 7' });
  const corrected = await admin.call('POST', '/orgs/beta/credits', { usd: -0.75, reason: 'correction' });
  t.same(corrected.body, { org: 'beta', balance: 14, usd: -0.75, reason: 'correction' });
  const credited = ledger.credited('beta');
  const refused = await admin.call('POST', '/orgs/beta/credits', { usd: -14.01, reason: 'too much' });
  t.equal(refused.status, 400);
  t.equal(refused.body.error.param, 'usd');
  t.equal(ledger.org('beta').balance, 14_000_000_000, 'the balance is unchanged');
  t.equal(ledger.credited('beta'), credited, 'no credit event was written');
  const toZero = await admin.call('POST', '/orgs/beta/credits', { usd: -14, reason: 'close' });
  t.equal(toZero.body.balance, 0, 'down to exactly zero is allowed');
});

t.test('keys: create (secret once), list and get without secrets, patch, revoke; config keys are the config\'s', async (t) => {
  const created = await admin.call('POST', '/keys', { org: 'beta', project: 'app', environment: 'prod', name: 'ci', scopes: ['messages'], models: ['anthropic/*'], spendCap: 3, rateLimit: { rpm: 60 } });
  t.equal(created.status, 201);
  const { key, ...view } = created.body;
  t.match(key, /^sk-gw-[A-Za-z0-9_-]{32}$/, 'the secret, this once');
  t.match(view, { org: 'beta', project: 'app', environment: 'prod', name: 'ci', scopes: ['messages'], models: ['anthropic/*'], spendCap: 3, rateLimit: { rpm: 60 }, spent: 0, reserved: 0, source: 'admin', revoked: false, revokedAt: null });
  t.equal(view.hint, `sk-gw-…${(key as string).slice(-4)}`);
  t.ok(!Number.isNaN(Date.parse(view.createdAt as string)));
  const id = view.id as string;
  const got = await admin.call('GET', `/keys/${id}`);
  t.same(got.body, view, 'get: the same view, no secret');
  const listed = await admin.call('GET', '/keys?org=beta&project=app');
  t.same(listed.body.data, [view]);
  t.equal((await admin.call('GET', '/keys?org=&project=')).body.data.length, 2, 'empty filters filter nothing');
  const all = await admin.call('GET', '/keys');
  t.ok(!JSON.stringify(all.body).includes(key as string), 'no listing carries a secret');
  t.notOk(JSON.stringify(all.body).match(/[0-9a-f]{64}/), 'nor a hash');
  t.match(all.body.data.find((k: { id: string }) => k.id === 'full'), { source: 'config', revoked: false, hint: '…0000' });

  const patched = await admin.call('PATCH', `/keys/${id}`, { name: 'ci-2', scopes: [], models: ['anthropic/claude-opus-5'], spendCap: null, rateLimit: null });
  t.equal(patched.status, 200);
  t.match(patched.body, { name: 'ci-2', scopes: [], models: ['anthropic/claude-opus-5'], spendCap: null, rateLimit: null });
  t.equal((await admin.call('PATCH', `/keys/${id}`, { org: 'acme' })).body.error.param, 'org', 'a key does not move');
  t.equal((await admin.call('PATCH', '/keys/full', { name: 'x' })).status, 409, 'a config key is changed in the config');
  t.equal((await admin.call('DELETE', '/keys/full')).status, 409);
  t.equal((await admin.call('DELETE', '/keys/key_nobody')).status, 404);

  const revoked = await admin.call('DELETE', `/keys/${id}`);
  t.equal(revoked.status, 200);
  t.match(revoked.body, { id, revoked: true });
  t.ok(!Number.isNaN(Date.parse(revoked.body.revokedAt as string)));
  t.equal((await admin.call('DELETE', `/keys/${id}`)).body.revoked, true, 'revoking again answers the revoked key');
  t.equal((await admin.call('PATCH', `/keys/${id}`, { name: 'back' })).status, 409, 'a revoked key stays revoked');
});

t.test('the audit log records every change: who (a fingerprint, never the key), what, when', async (t) => {
  const r = await admin.call('GET', '/audit?limit=100');
  t.equal(r.status, 200);
  const actions = (r.body.data as { action: string }[]).map((a) => a.action).reverse();
  t.same(actions, ['org.create', 'org.update', 'project.create', 'environment.create', 'org.credits', 'org.credits', 'org.credits', 'key.create', 'key.update', 'key.revoke']);
  const text = JSON.stringify(r.body);
  t.notOk(text.includes('admin-test-key'), 'the admin key is not in the log');
  t.notOk(text.includes('sk-gw-'), 'no key secret either');
  for (const row of r.body.data as { actor: string; at: string; seq: number; target: string; detail: unknown }[]) {
    t.match(row.actor, /^admin:[0-9a-f]{8}$/);
    t.ok(!Number.isNaN(Date.parse(row.at)));
  }
  t.match(r.body.data[0], { action: 'key.revoke', target: /^key:key_/ });
  t.match([...r.body.data].reverse().find((a: { action: string }) => a.action === 'org.credits'), { target: 'org:beta', detail: { usd: 2.25, reason: 'invoice 7' } });
  t.equal((await admin.call('GET', '/audit?limit=2')).body.data.length, 2);
  t.equal((await admin.call('GET', '/audit?limit=0')).body.error.param, 'limit');
});
