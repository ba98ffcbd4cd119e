// `limits: "redis://…"`: two bin/gateway replicas on one real Redis (Debian's redis-server, started
// here on a free loopback port) share rate limits, sticky sessions and key revocation; with Redis
// down, a rate-limited key is refused with a 503 in the endpoint's envelope and /readyz fails; a
// Redis that does not answer at start stops the gateway with one clear line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { post, msg } from '../helpers/messages.js';
import { freePort, startRedis, type RedisServer } from '../helpers/redis-server.js';
import { clientsConfig } from '../clients/config.js';
import { GATEWAY } from '../helpers/processes.js';
import { spawnSync } from 'node:child_process';

let redis: RedisServer;
t.before(async () => {
  redis = await startRedis();
});
t.teardown(() => redis?.stop());

const LIMITED = 'sk-test-limited-0001';
const limitedKey = { id: 'limited', key: LIMITED, org: 'acme', rateLimit: { rpm: 6 } };

async function pair(config: Record<string, unknown>): Promise<[RunningGateway, RunningGateway]> {
  return Promise.all([startGateway(config), startGateway(config)]);
}

t.test('one rate limit across two replicas: rpm 6 lets 6 of 12 requests through, wherever they land', async (t) => {
  await redis.client.flushall();
  const [a, b] = await pair(baseConfig({ limits: redis.url, keys: [limitedKey] }));
  t.teardown(async () => void (await Promise.all([a.stop(), b.stop()])));
  const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => post(i % 2 === 0 ? a : b, msg('opus'), { headers: { 'x-api-key': LIMITED } })));
  const statuses = replies.map((r) => r.status);
  t.equal(statuses.filter((s) => s === 200).length, 6, `statuses ${statuses.join(' ')}`);
  t.equal(statuses.filter((s) => s === 429).length, 6);
  const refused = replies.find((r) => r.status === 429)!;
  t.match(refused.headers.get('retry-after'), /^\d+$/);
  t.equal(refused.headers.get('anthropic-ratelimit-requests-remaining'), '0');
});

t.test('a session pinned on one replica continues on another (signed thinking replayed)', async (t) => {
  await redis.client.flushall();
  const [a, b] = await pair(clientsConfig({ limits: redis.url }));
  t.teardown(async () => void (await Promise.all([a.stop(), b.stop()])));
  const tools = [{ name: 'get_weather', description: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  const first = { model: 'gateway-auto', max_tokens: 4096, thinking: { type: 'adaptive' }, tools, messages: [{ role: 'user', content: 'weather in Paris?' }] };
  const session = { 'x-claude-code-session-id': 'sess-replicas-1' };
  const r1 = await post(a, first, { headers: session });
  t.equal(r1.status, 200, r1.text);
  const m1 = JSON.parse(r1.text) as { content: Record<string, unknown>[] };
  const toolUse = m1.content.find((c) => c.type === 'tool_use')!;
  const second = { ...first, messages: [...first.messages, { role: 'assistant', content: m1.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'sunny' }] }] };
  const r2 = await post(b, second, { headers: session });
  t.equal(r2.status, 200, `the other replica knows the session: ${r2.text}`);
  t.match(JSON.parse(r2.text), { gateway: { routed: true, routed_model: 'anthropic/claude-sonnet-5' } });
  t.ok((await redis.client.keys('gw:sticky:*')).length === 1, 'the pin is kept in redis, with a TTL');
  t.ok((await redis.client.ttl((await redis.client.keys('gw:sticky:*'))[0]!)) > 3600);
});

t.test('a key revoked by a reload on one replica is refused by the other within a second', async (t) => {
  await redis.client.flushall();
  const dir = mkdtempSync(join(tmpdir(), 'gw-revoke-'));
  const other = { id: 'other', key: 'sk-test-other-0002', org: 'acme' };
  const config = baseConfig({ limits: redis.url, store: `sqlite:${join(dir, 'gw.db')}`, keys: [...(baseConfig().keys as object[]), other] });
  const a = await startGateway(config);
  const b = await startGateway(config);
  t.teardown(async () => void (await Promise.all([a.stop(), b.stop()])));
  t.equal((await post(b, msg('opus'), { headers: { 'x-api-key': other.key } })).status, 200, 'the key works (and is cached) on b');
  writeFileSync(a.configFile, JSON.stringify({ ...config, keys: baseConfig().keys }));
  a.proc.kill('SIGHUP');
  const reloadedAt = await waitFor(() => a.logs.some((l) => l.msg === 'config reloaded'), 5000);
  t.ok(reloadedAt, 'a reloaded');
  const start = Date.now();
  let status = 0;
  while (Date.now() - start < 1000) {
    status = (await post(b, msg('opus'), { headers: { 'x-api-key': other.key } })).status;
    if (status === 401) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(status, 401, 'b refuses the revoked key within one second of the reload');
  t.equal((await post(b, msg('opus'))).status, 200, 'the key still listed keeps working');
});

t.test('redis down: a rate-limited key gets a 503 in its envelope, /readyz fails; both recover with redis', async (t) => {
  await redis.client.flushall();
  const gw = await startGateway(baseConfig({ limits: redis.url, keys: [...(baseConfig().keys as object[]), limitedKey] }));
  t.teardown(() => gw.stop());
  t.match(await (await fetch(`${gw.url}/readyz`)).json(), { status: 'ready', checks: { store: 'ok', limits: 'ok' } });
  await redis.kill();
  const messages = await post(gw, msg('opus'), { headers: { 'x-api-key': LIMITED } });
  t.equal(messages.status, 503, messages.text);
  t.equal(messages.headers.get('retry-after'), '1');
  t.match(JSON.parse(messages.text), { type: 'error', error: { type: 'api_error', message: /rate limits.*Redis/ } });
  const chat = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${LIMITED}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(chat.status, 503);
  t.match(await chat.json(), { error: { code: 'service_unavailable', message: /rate limits/ } });
  t.equal((await post(gw, msg('opus'))).status, 200, 'a key without rate limits needs no redis');
  const notReady = await fetch(`${gw.url}/readyz`);
  t.equal(notReady.status, 503);
  t.match(await notReady.json(), { status: 'not ready', checks: { store: 'ok', limits: /redis/ } });

  await redis.restart();
  const back = await waitFor(async () => (await fetch(`${gw.url}/readyz`)).status === 200, 5000);
  t.ok(back, '/readyz is ready again once redis is back');
  t.equal((await post(gw, msg('opus'), { headers: { 'x-api-key': LIMITED } })).status, 200);
});

t.test('limits configured but redis unreachable: the gateway does not start, and says why', async (t) => {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gw-noredis-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(baseConfig({ limits: `redis://:s3cret@127.0.0.1:${port}` })));
  const run = spawnSync(process.execPath, [GATEWAY, '--config', file, '--port', '0'], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
  t.equal(run.status, 1);
  t.match(run.stderr, `gateway: Invalid configuration: limits: cannot reach redis://:***@127.0.0.1:${port}`);
  t.notMatch(run.stderr, /s3cret/, 'never the password');
});

async function waitFor(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

