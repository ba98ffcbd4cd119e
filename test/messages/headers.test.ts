// Response and forwarded headers of the Messages family through bin/gateway: `request-id` on every
// answer (x-gateway-request-id when the upstream's id is shown), `anthropic-beta` and other
// `anthropic-*` headers forwarded in order, and the client's credential never forwarded.
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { countTokens, expectError, msg, parseSse, post, upstreamCalls } from '../helpers/messages.js';

const config = withModels(baseConfig(), [
  {
    id: 'test/limited',
    family: 'anthropic',
    deployments: [{ provider: 'sim-anthropic', model: 'fault:429;retry-after=3' }],
    pricing: { input: 1, output: 5 },
  },
]);
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const LOCAL_ID = /^req_[0-9a-f]{32}$/;
const SIM_ID = /^req_sim_\d+$/;

t.test('request-id on every answer of the Messages family', async (t) => {
  const json = await post(gw, msg('opus'));
  t.equal(json.status, 200);
  t.match(json.headers.get('request-id'), SIM_ID, 'the upstream id is shown');
  t.match(json.headers.get('x-gateway-request-id'), LOCAL_ID, 'our own id beside it');

  const sse = await post(gw, msg('opus', { stream: true }));
  t.match(sse.headers.get('request-id'), SIM_ID);
  t.match(sse.headers.get('x-gateway-request-id'), LOCAL_ID);
  t.equal(parseSse(sse.text).at(-1)?.event, 'message_stop');

  const invalid = await post(gw, msg('opus', { foo: 1 }));
  const body = expectError(t, invalid, 400, 'invalid_request_error');
  t.match(body.request_id, LOCAL_ID, 'a gateway error carries our id');
  t.equal(invalid.headers.get('x-gateway-request-id'), null, 'no second id when nothing came from upstream');

  const unauthenticated = await post(gw, msg('opus'), { headers: { 'x-api-key': 'sk-wrong' } });
  expectError(t, unauthenticated, 401, 'authentication_error');

  const count = await countTokens(gw, { model: 'opus', messages: [{ role: 'user', content: 'hi' }] });
  expectError(t, count, 404, 'not_found_error');

  const mcp = await fetch(`${gw.url}/v1/mcp_servers?limit=1000`, { headers: { 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY } });
  t.equal(mcp.status, 200);
  t.same(await mcp.json(), { data: [], next_page: null });
  t.match(mcp.headers.get('request-id'), LOCAL_ID);

  const mcpBad = await fetch(`${gw.url}/v1/mcp_servers?limit=0`, { headers: { 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY } });
  expectError(t, { status: mcpBad.status, headers: mcpBad.headers, text: await mcpBad.text() }, 400, 'invalid_request_error', 'limit');
});

t.test("a canonical upstream error keeps the upstream's request id", async (t) => {
  const r = await post(gw, msg('test/limited'));
  const body = expectError(t, r, 429, 'rate_limit_error');
  t.equal(r.headers.get('retry-after'), '3');
  t.match(body.request_id, SIM_ID, "the provider's request id");
  t.match(r.headers.get('x-gateway-request-id'), LOCAL_ID, 'our own id beside it');
});

t.test('anthropic-beta is forwarded in order; other anthropic-* headers too', async (t) => {
  await gw.clearSim();
  const betas = 'zeta-2026-01-01, claude-code-20250219,fast-mode-2026-02-01 ,alpha-2025-01-01,zeta-2026-01-01';
  const r = await post(gw, msg('opus', { speed: 'fast' }), {
    headers: { 'anthropic-beta': betas, 'anthropic-dangerous-direct-browser-access': 'true', 'anthropic-future-flag': 'on', 'anthropic-version': '2026-10-21' },
  });
  t.equal(r.status, 200, r.text);
  const [call] = await upstreamCalls(gw);
  t.equal(call?.headers['anthropic-beta'], 'zeta-2026-01-01,claude-code-20250219,fast-mode-2026-02-01,alpha-2025-01-01', 'order kept, repeats dropped');
  t.equal(call?.headers['anthropic-dangerous-direct-browser-access'], 'true');
  t.equal(call?.headers['anthropic-future-flag'], 'on');
  t.equal(call?.headers['anthropic-version'], '2023-06-01', 'the provider gets the version the gateway speaks');
  await gw.clearSim();
  await post(gw, msg('opus'));
  t.equal((await upstreamCalls(gw))[0]?.headers['anthropic-beta'], undefined, 'no beta header when the client sent none');
});

t.test("the gateway's credential is never forwarded; the provider sees its own", async (t) => {
  const auths: Record<string, string>[] = [{ 'x-api-key': TEST_KEY }, { authorization: `Bearer ${TEST_KEY}` }, { 'x-api-key': TEST_KEY, authorization: `Bearer ${TEST_KEY}` }];
  for (const auth of auths) {
    await gw.clearSim();
    const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...auth };
    const r = await post(gw, msg('opus', { stream: true }), { rawHeaders: headers });
    t.equal(r.status, 200);
    const [call] = await upstreamCalls(gw);
    t.equal(call?.headers['x-api-key'], 'sim-key', "the provider's key");
    t.equal(call?.headers.authorization, undefined, 'no Authorization header');
    t.notOk(JSON.stringify(call?.headers).includes(TEST_KEY), "the client's key appears nowhere upstream");
  }
});

t.test('gateway-owned headers: content-type and accept are the gateway’s', async (t) => {
  await gw.clearSim();
  await post(gw, msg('opus', { stream: true }), { headers: { accept: 'application/x-custom', 'content-type': 'application/json; charset=utf-8' } });
  const [call] = await upstreamCalls(gw);
  t.equal(call?.headers['content-type'], 'application/json');
  t.equal(call?.headers.accept, 'text/event-stream');
  t.ok(messagesHeaders());
});
