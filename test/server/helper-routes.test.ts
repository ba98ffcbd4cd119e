// The Messages helper routes through real HTTP against bin/gateway: HEAD /api/hello, GET /v1/models,
// GET /v1/mcp_servers and POST /v1/messages/count_tokens. None calls a provider or charges.
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { errorOf, rawRequest } from '../helpers/http.js';

const config = baseConfig({
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
    { id: 'chat-only', key: 'sk-test-chat-only', org: 'acme', scopes: ['chat.completions'] },
    { id: 'anthropic-only', key: 'sk-test-anthropic-only', org: 'acme', models: ['anthropic/*'] },
  ],
});
let gw: RunningGateway;

t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(async () => {
  await gw.stop();
});

t.test('HEAD /api/hello: 204 without credentials', async (t) => {
  const res = await fetch(`${gw.url}/api/hello`, { method: 'HEAD' });
  t.equal(res.status, 204);
  t.equal(await res.text(), '');
});

t.test('GET /v1/models', async (t) => {
  const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(res.status, 200);
  const body = (await res.json()) as { object: string; data: Record<string, unknown>[]; has_more: boolean; first_id: string; last_id: string };
  t.equal(body.object, 'list');
  t.equal(body.has_more, false);
  const ids = body.data.map((m) => m.id);
  t.ok(ids.includes('gateway-auto'), 'without anthropic-version: the whole catalog, gateway-auto included');
  t.ok(ids.includes('openai/gpt-5'));
  t.ok(ids.includes('openai/gpt-4o-transcribe'));
  t.equal(body.first_id, ids[0]);
  t.equal(body.last_id, ids[ids.length - 1]);
  for (const m of body.data) {
    t.match(m, { id: String, object: 'model', type: 'model', display_name: String, created: Number, created_at: String, owned_by: String });
  }

  const anth = await fetch(`${gw.url}/v1/models?limit=1000`, { headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' } });
  t.equal(anth.status, 200);
  const anthIds = ((await anth.json()) as { data: { id: string }[] }).data.map((m) => m.id);
  t.same(anthIds, ['anthropic/claude-opus-5', 'anthropic/claude-sonnet-5', 'anthropic/claude-opus-4.8'], 'with anthropic-version: the Anthropic family only');

  const page = await fetch(`${gw.url}/v1/models?limit=2`, { headers: { 'x-api-key': TEST_KEY } });
  const paged = (await page.json()) as { data: unknown[]; has_more: boolean };
  t.equal(paged.data.length, 2);
  t.equal(paged.has_more, true);

  const restricted = await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': 'sk-test-anthropic-only' } });
  const rIds = ((await restricted.json()) as { data: { id: string }[] }).data.map((m) => m.id);
  t.notOk(rIds.includes('openai/gpt-5'), "the key's model allowlist filters the list");
});

t.test('GET /v1/models errors use the envelope the request implies', async (t) => {
  const openai = await fetch(`${gw.url}/v1/models`);
  t.equal(openai.status, 401);
  t.match(errorOf(await openai.text()), { code: 'unauthorized' });
  const anth = await fetch(`${gw.url}/v1/models`, { headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'nope-nope-nope' } });
  t.equal(anth.status, 401);
  const body = await anth.text();
  t.match(errorOf(body), { type: 'authentication_error' });
  t.equal(JSON.parse(body).type, 'error');
  t.equal(anth.headers.get('request-id'), JSON.parse(body).request_id);
  const bad = await fetch(`${gw.url}/v1/models?limit=0`, { headers: { 'x-api-key': TEST_KEY } });
  t.equal(bad.status, 400);
  t.match(errorOf(await bad.text()), { code: 'invalid_request', param: 'limit' });
});

t.test('GET /v1/mcp_servers: every query rule', async (t) => {
  const h = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };
  const ok = await fetch(`${gw.url}/v1/mcp_servers?limit=1000`, { headers: h });
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('content-type'), 'application/json');
  t.ok(ok.headers.get('request-id'));
  t.same(await ok.json(), { data: [], next_page: null });
  const withPage = await fetch(`${gw.url}/v1/mcp_servers?limit=1&page=abc`, { headers: h });
  t.equal(withPage.status, 200);
  const bad: [string, string][] = [
    ['', 'limit'],
    ['?limit=0', 'limit'],
    ['?limit=1001', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=ten', 'limit'],
    ['?limit=10&limit=10', 'limit'],
    ['?limit=10&page=', 'page'],
    [`?limit=10&page=${'x'.repeat(2049)}`, 'page'],
    ['?limit=10&page=a&page=b', 'page'],
    ['?limit=10&cursor=abc', 'cursor'],
  ];
  for (const [query, param] of bad) {
    const res = await fetch(`${gw.url}/v1/mcp_servers${query}`, { headers: h });
    t.equal(res.status, 400, `${query || '(no query)'} is refused`);
    const err = errorOf(await res.text());
    t.equal(err.type, 'invalid_request_error');
    t.match(err.message, new RegExp(`^${param}: `), `the message names ${param}`);
    t.match(err.message, /limit=1000/, 'the message says what to send');
  }
  const longPage = await fetch(`${gw.url}/v1/mcp_servers?limit=10&page=${'x'.repeat(2048)}`, { headers: h });
  t.equal(longPage.status, 200, 'a 2,048-character cursor is accepted');
  const noVersion = await fetch(`${gw.url}/v1/mcp_servers?limit=10`, { headers: { 'x-api-key': TEST_KEY } });
  t.equal(noVersion.status, 400);
  t.match(errorOf(await noVersion.text()).message, /anthropic-version/);
  const noScope = await fetch(`${gw.url}/v1/mcp_servers?limit=10`, { headers: { ...h, 'x-api-key': 'sk-test-chat-only' } });
  t.equal(noScope.status, 403);
  t.equal(errorOf(await noScope.text()).type, 'permission_error');
  const noKey = await fetch(`${gw.url}/v1/mcp_servers?limit=10`, { headers: { 'anthropic-version': '2023-06-01' } });
  t.equal(noKey.status, 401);
});

t.test('POST /v1/messages/count_tokens: validates, then 404 without calling a provider', async (t) => {
  await gw.clearSim();
  const body = JSON.stringify({ model: 'claude-opus-5', messages: [{ role: 'user', content: 'foo' }] });
  const res = await fetch(`${gw.url}/v1/messages/count_tokens?beta=true`, { method: 'POST', headers: messagesHeaders(), body });
  t.equal(res.status, 404);
  const text = await res.text();
  const err = errorOf(text);
  t.equal(err.type, 'not_found_error');
  t.match(err.message, /fall back|Estimate locally/i);
  t.equal(res.headers.get('request-id'), err.request_id);
  const checks: [Record<string, string>, string, number, string][] = [
    [{ 'x-api-key': 'wrong-key-0000' }, body, 401, 'authentication_error'],
    [{ 'anthropic-version': '2020-01-01' }, body, 400, 'invalid_request_error'],
    [{ 'x-api-key': 'sk-test-chat-only' }, body, 403, 'permission_error'],
    [{}, JSON.stringify({ model: 'claude-opus-5', messages: [] }), 400, 'invalid_request_error'],
    [{}, JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }), 400, 'invalid_request_error'],
  ];
  for (const [headers, b, status, type] of checks) {
    const r = await fetch(`${gw.url}/v1/messages/count_tokens`, { method: 'POST', headers: messagesHeaders(headers), body: b });
    t.equal(r.status, status, `${status} ${type}`);
    t.equal(errorOf(await r.text()).type, type);
  }
  const unknown = await fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: messagesHeaders(),
    body: JSON.stringify({ model: 'claude-opus-9', messages: [{ role: 'user', content: 'x' }] }),
  });
  t.match(errorOf(await unknown.text()).message, /claude-opus-5.*GET \/v1\/models|GET \/v1\/models/s, 'a guided 400 for an unknown model');
  t.same(await gw.simRequests(), [], 'no provider call');
});

t.test('unknown routes and methods', async (t) => {
  const openai = await fetch(`${gw.url}/v1/nope`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(openai.status, 404);
  t.match(errorOf(await openai.text()), { code: 'not_found' });
  const anth = await fetch(`${gw.url}/v1/nope`, { headers: { 'anthropic-version': '2023-06-01' } });
  t.equal(anth.status, 404);
  const body = await anth.text();
  t.equal(errorOf(body).type, 'not_found_error');
  t.equal(anth.headers.get('request-id'), JSON.parse(body).request_id);
  const method = await fetch(`${gw.url}/v1/messages`, { headers: messagesHeaders() });
  t.equal(method.status, 405);
  t.equal(method.headers.get('allow'), 'POST');
  const stored = await rawRequest(`${gw.url}/v1/responses/resp_123`, { method: 'GET', headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(stored.status, 400, 'stored-response routes answer 400, not 404');
  t.match(errorOf(stored.body), { code: 'invalid_request' });
});
