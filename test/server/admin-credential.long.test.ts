// The admin credential through the real bin/gateway (decisions §12): `admin.keys` in the config or
// GATEWAY_ADMIN_KEY, sent as `Authorization: Bearer`; API routes refuse it, admin routes refuse API
// keys; a SIGHUP reload swaps admin keys as it does API keys and keeps the metrics; bad admin keys
// stop the start with the field named.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY } from '../helpers/gateway.js';
import { errorOf } from '../helpers/http.js';
import { eventually, msg, post } from '../helpers/messages.js';
import { ROOT } from '../helpers/paths.js';
import { parseExposition, sampleSum } from '../helpers/prometheus.js';

const CONFIG_ADMIN = 'sk-admin-config-00000001';
const ENV_ADMIN = 'sk-admin-environment-0001';
const NEXT_ADMIN = 'sk-admin-after-reload-001';

const metricsWith = (url: string, key: string): Promise<Response> => fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${key}` } });

t.test('admin keys from the config and from GATEWAY_ADMIN_KEY; API routes refuse them', async (t) => {
  const gw = await startGateway(baseConfig({ admin: { keys: [CONFIG_ADMIN] } }), { env: { GATEWAY_ADMIN_KEY: ENV_ADMIN } });
  t.teardown(() => gw.stop());
  t.equal((await metricsWith(gw.url, CONFIG_ADMIN)).status, 200, 'admin.keys');
  t.equal((await metricsWith(gw.url, ENV_ADMIN)).status, 200, 'GATEWAY_ADMIN_KEY');
  const api = await metricsWith(gw.url, TEST_KEY);
  t.equal(api.status, 403, 'an API key on an admin route');
  t.match(errorOf(await api.text()), { code: 'endpoint_not_allowed', message: /This is an API key; this route needs the admin key/ }, 'OpenAI-style envelope');

  const messages = await post(gw, msg('opus'), { headers: { 'x-api-key': CONFIG_ADMIN } });
  t.equal(messages.status, 403, 'the admin key on /v1/messages');
  t.match(errorOf(messages.text), { type: 'permission_error', message: /This is the admin key; the API endpoints need an API key/ }, 'in the Messages envelope');
  const chat = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ENV_ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] }) });
  t.equal(chat.status, 403, 'the admin key on /v1/chat/completions');
  t.match(errorOf(await chat.text()), { message: /This is the admin key/ });
  const models = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${CONFIG_ADMIN}` } });
  t.equal(models.status, 403, 'the admin key on /v1/models');
  t.notMatch(gw.logs.map((l) => JSON.stringify(l)).join('\n'), new RegExp(`${CONFIG_ADMIN}|${ENV_ADMIN}`), 'admin keys never logged');
});

t.test('no admin key configured: /metrics says how to configure one', async (t) => {
  const gw = await startGateway(baseConfig());
  t.teardown(() => gw.stop());
  const r = await metricsWith(gw.url, 'sk-admin-guess-000000000');
  t.equal(r.status, 401);
  t.match(errorOf(await r.text()), { message: /No admin key is configured: set `admin\.keys`.*GATEWAY_ADMIN_KEY/ });
});

t.test('SIGHUP: the new admin keys take over, the old ones stop, the metrics are kept', async (t) => {
  const gw = await startGateway(baseConfig({ admin: { keys: [CONFIG_ADMIN] } }));
  t.teardown(() => gw.stop());
  t.equal((await post(gw, msg('opus'))).status, 200);
  const before = lines(await (await metricsWith(gw.url, CONFIG_ADMIN)).text());
  const at = gw.logs.length;
  writeFileSync(gw.configFile, JSON.stringify(baseConfig({ admin: { keys: [NEXT_ADMIN] } })));
  gw.proc.kill('SIGHUP');
  t.ok(await eventually(async () => gw.logs.slice(at).some((l) => l.msg === 'config reloaded')), 'reloaded');
  t.equal((await metricsWith(gw.url, CONFIG_ADMIN)).status, 401, 'the removed admin key is refused');
  const after = await metricsWith(gw.url, NEXT_ADMIN);
  t.equal(after.status, 200, 'the added admin key works');
  const kept = lines(await after.text());
  t.equal(kept, before, 'gateway_requests_total for the request before the reload is still there');
});

function lines(text: string): number {
  return sampleSum(parseExposition(text), 'gateway_requests_total', { endpoint: 'messages', status: '200' });
}

function start(config: unknown, env: NodeJS.ProcessEnv = {}): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-admin-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/bin/gateway.js'), '--config', file, '--port', '0'], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stderr: r.stderr };
}

t.test('bad admin keys stop the start, naming the field', async (t) => {
  const cases: [string, unknown, NodeJS.ProcessEnv, RegExp][] = [
    ['too short', baseConfig({ admin: { keys: ['short'] } }), {}, /admin\.keys\[0\]: must NOT have fewer than 16 characters/],
    ['also an API key', baseConfig({ admin: { keys: [TEST_KEY + '-padding'] }, keys: [{ key: TEST_KEY + '-padding', org: 'acme' }] }), {}, /admin\.keys\[0\]: is also keys\[0\]\.key/],
    ['listed twice', baseConfig({ admin: { keys: [CONFIG_ADMIN, CONFIG_ADMIN] } }), {}, /admin\.keys\[1\]: the same admin key is listed twice/],
    ['unknown field', baseConfig({ admin: { secret: CONFIG_ADMIN } }), {}, /admin\.secret: unknown field/],
    ['metrics.public not a boolean', baseConfig({ metrics: { public: 'yes' } }), {}, /metrics\.public: must be boolean/],
    ['GATEWAY_ADMIN_KEY too short', baseConfig(), { GATEWAY_ADMIN_KEY: 'short' }, /GATEWAY_ADMIN_KEY: must be at least 16 characters/],
    ['GATEWAY_ADMIN_KEY also an API key', baseConfig({ keys: [{ key: 'sk-shared-secret-000001', org: 'acme' }] }), { GATEWAY_ADMIN_KEY: 'sk-shared-secret-000001' }, /GATEWAY_ADMIN_KEY: is also keys\[0\]\.key/],
  ];
  for (const [name, config, env, message] of cases) {
    const r = start(config, env);
    t.equal(r.status, 1, `${name}: exit 1`);
    t.match(r.stderr, message, name);
    t.notMatch(r.stderr, /sk-shared-secret-000001|sk-admin-config/, `${name}: the secret is not printed`);
  }
});
