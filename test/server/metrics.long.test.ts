// GET /metrics through the real bin/gateway: the §12 series move as requests run, and the text is
// valid Prometheus exposition (test/helpers/prometheus.ts reads it strictly).
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { errorOf } from '../helpers/http.js';
import { eventually, msg, post } from '../helpers/messages.js';
import { parseExposition, sampleSum, sampleValue, type Family } from '../helpers/prometheus.js';

const ADMIN = 'sk-admin-metrics-0000000';
const FAILOVER = {
  id: 'test/failover',
  family: 'anthropic',
  deployments: [
    { provider: 'sim-anthropic', model: 'fault:503' },
    { provider: 'sim-backup', model: 'claude-opus-5' },
  ],
  pricing: { input: 5, output: 25 },
  input: ['text'],
  maxOutputTokens: 4000,
};
const base = baseConfig({ admin: { keys: [ADMIN] } });
const SLOW = { id: 'test/slow', family: 'anthropic', deployments: [{ provider: 'sim-anthropic', model: 'fault:slow;ms=800' }], pricing: { input: 5, output: 25 }, input: ['text'], maxOutputTokens: 4000 };
const config = withModels({ ...base, providers: [...(base.providers as unknown[]), { id: 'sim-backup', protocol: 'anthropic', simulated: true }] }, [FAILOVER, SLOW]);

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

async function scrape(target: RunningGateway = gw, auth: string | null = ADMIN): Promise<Map<string, Family>> {
  const res = await fetch(`${target.url}/metrics`, { headers: auth === null ? {} : { authorization: `Bearer ${auth}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${text}`);
  if (!/^text\/plain; version=0\.0\.4/.test(res.headers.get('content-type') ?? '')) throw new Error(`content-type ${res.headers.get('content-type')}`);
  return parseExposition(text);
}

const OPUS = { endpoint: 'messages', model: 'anthropic/claude-opus-5' };

t.test('every §12 series is there with HELP and TYPE, before any request', async (t) => {
  const m = await scrape();
  const types = Object.fromEntries([...m.values()].map((f) => [f.name, f.type]));
  t.match(types, {
    gateway_requests_total: 'counter',
    gateway_request_duration_seconds: 'histogram',
    gateway_upstream_duration_seconds: 'histogram',
    gateway_overhead_seconds: 'histogram',
    gateway_time_to_first_token_seconds: 'histogram',
    gateway_tokens_total: 'counter',
    gateway_cost_usd_total: 'counter',
    gateway_failovers_total: 'counter',
    gateway_reservations_open: 'gauge',
  });
  for (const f of m.values()) t.not(f.help, '', `${f.name} has a HELP text`);
  t.equal(sampleValue(m, 'gateway_reservations_open'), 0);
});

t.test('a Messages answer: requests, tokens, durations and cost move by what the client was told', async (t) => {
  const before = await scrape();
  const r = await post(gw, msg('opus'));
  t.equal(r.status, 200);
  const usage = (JSON.parse(r.text) as { usage: { input_tokens: number; output_tokens: number } }).usage;
  const after = await scrape();
  const delta = (name: string, labels: Record<string, string>): number => sampleSum(after, name, labels) - sampleSum(before, name, labels);
  t.equal(delta('gateway_requests_total', { ...OPUS, status: '200' }), 1, 'one request counted under its endpoint, served model and status');
  t.equal(delta('gateway_tokens_total', { ...OPUS, kind: 'input' }), usage.input_tokens, 'input tokens as in the answer');
  t.equal(delta('gateway_tokens_total', { ...OPUS, kind: 'output' }), usage.output_tokens, 'output tokens as in the answer');
  const expectedUsd = (usage.input_tokens * 5 + usage.output_tokens * 25) / 1e6;
  t.ok(Math.abs(delta('gateway_cost_usd_total', { org: 'acme', model: OPUS.model }) - expectedUsd) < 1e-9, 'cost at the catalog price');
  t.equal(delta('gateway_request_duration_seconds_count', OPUS), 1);
  t.equal(delta('gateway_upstream_duration_seconds_count', OPUS), 1);
  t.equal(delta('gateway_overhead_seconds_count', OPUS), 1);
  t.equal(delta('gateway_time_to_first_token_seconds_count', OPUS), 0, 'no TTFT for a JSON answer');
  const total = sampleValue(after, 'gateway_request_duration_seconds_sum', OPUS)!;
  const upstream = sampleValue(after, 'gateway_upstream_duration_seconds_sum', OPUS)!;
  t.ok(total >= upstream, 'the request took at least its upstream time');
  t.equal(sampleValue(after, 'gateway_reservations_open'), 0, 'the reservation was settled');
});

t.test('a stream has a time to first token; a refused request is counted with its status', async (t) => {
  const before = await scrape();
  const r = await post(gw, msg('opus', { stream: true }));
  t.equal(r.status, 200);
  t.match(r.text, /message_stop/);
  const refused = await post(gw, msg('no-such-model'));
  t.equal(refused.status, 400);
  const after = await scrape();
  const delta = (name: string, labels: Record<string, string>): number => sampleSum(after, name, labels) - sampleSum(before, name, labels);
  t.equal(delta('gateway_time_to_first_token_seconds_count', OPUS), 1, 'one TTFT observation');
  const ttft = delta('gateway_time_to_first_token_seconds_sum', OPUS);
  const duration = delta('gateway_request_duration_seconds_sum', OPUS);
  t.ok(ttft > 0 && ttft <= duration + 0.001, `TTFT ${ttft}s within the request's ${duration}s`);
  t.equal(delta('gateway_requests_total', { endpoint: 'messages', model: 'none', status: '400' }), 1, 'an unknown model is counted under one label value');
  t.equal(sampleValue(after, 'gateway_reservations_open'), 0);
});

t.test('chat completions: the cost counter moves by the usage.cost the client was told', async (t) => {
  const before = await scrape();
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hello' }] }),
  });
  t.equal(res.status, 200);
  const told = ((await res.json()) as { usage: { cost: number; prompt_tokens: number } }).usage;
  const after = await scrape();
  const labels = { org: 'acme', model: 'openai/gpt-5' };
  const moved = sampleSum(after, 'gateway_cost_usd_total', labels) - sampleSum(before, 'gateway_cost_usd_total', labels);
  t.ok(told.cost > 0);
  t.ok(Math.abs(moved - told.cost) < 1e-12, `cost counter moved by ${moved}, the client was told ${told.cost}`);
  const input = { endpoint: 'chat.completions', model: 'openai/gpt-5', kind: 'input' };
  t.equal(sampleSum(after, 'gateway_tokens_total', input) - sampleSum(before, 'gateway_tokens_total', input), told.prompt_tokens);
});

t.test('a failing first deployment counts one failover, under the model and the provider that failed', async (t) => {
  const before = await scrape();
  const r = await post(gw, msg('test/failover'));
  t.equal(r.status, 200, 'served by the second deployment');
  const after = await scrape();
  const labels = { model: 'test/failover', provider: 'sim-anthropic' };
  t.equal((sampleValue(after, 'gateway_failovers_total', labels) ?? 0) - (sampleValue(before, 'gateway_failovers_total', labels) ?? 0), 1);
  t.equal(sampleValue(after, 'gateway_failovers_total', { model: 'test/failover', provider: 'sim-backup' }), undefined, 'the deployment that answered is no failover');
  t.equal(sampleSum(after, 'gateway_requests_total', { endpoint: 'messages', model: 'test/failover', status: '200' }), 1);
});

t.test('reservations_open counts a request in flight, and goes back to 0', async (t) => {
  const slow = post(gw, msg('test/slow'));
  const open = await eventually(async () => (sampleValue(await scrape(), 'gateway_reservations_open') === 1 ? true : undefined), 3000);
  t.ok(open, 'one reservation open while the slow request waits on its provider');
  t.equal((await slow).status, 200);
  t.equal(sampleValue(await scrape(), 'gateway_reservations_open'), 0, 'settled: back to 0');
});

t.test('/metrics: admin key only; API keys, wrong and missing keys refused in the OpenAI envelope', async (t) => {
  const get = (headers: Record<string, string>): Promise<Response> => fetch(`${gw.url}/metrics`, { headers });
  const none = await get({});
  t.equal(none.status, 401);
  t.match(errorOf(await none.text()), { message: /admin key/ }, 'OpenAI-style envelope naming the admin key');
  const api = await get({ authorization: `Bearer ${TEST_KEY}` });
  t.equal(api.status, 403, 'an API key is refused');
  const apiError = errorOf(await api.text());
  t.match(apiError, { message: /This is an API key/ });
  t.equal((await get({ 'x-api-key': TEST_KEY })).status, 401, 'the admin key is read from Authorization only');
  t.equal((await get({ authorization: 'Bearer sk-admin-wrong-00000000' })).status, 401);
  t.equal((await get({ authorization: `Bearer ${ADMIN}` })).status, 200);
});

t.test('metrics.public serves /metrics without a credential; metrics.enabled false serves nothing', async (t) => {
  const pub = await startGateway(baseConfig({ metrics: { public: true } }));
  t.teardown(() => pub.stop());
  const m = await scrape(pub, null);
  t.ok(m.has('gateway_requests_total'));
  const off = await startGateway(baseConfig({ admin: { keys: [ADMIN] }, metrics: { enabled: false } }));
  t.teardown(() => off.stop());
  const r = await fetch(`${off.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  t.equal(r.status, 404);
  t.equal((await post(off, msg('opus'))).status, 200, 'requests are served as before');
});
