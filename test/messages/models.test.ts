// Model resolution on POST /v1/messages through bin/gateway: catalog ids, aliases, vendor names,
// undated versions, bound snapshots, guided 400s, gateway-auto, the key's model allowlist, fast
// mode, and the max_tokens cap reported in `gateway.max_tokens_capped_to`.
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { dataOf, expectError, msg, parseSse, post, upstreamCalls } from '../helpers/messages.js';

const OPUS_ONLY = 'sk-test-opus-only-0000';
const FAST = 'fast-mode-2026-02-01';

const config = withModels(
  baseConfig({
    keys: [
      { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
      { id: 'opus-only', key: OPUS_ONLY, org: 'acme', models: ['anthropic/claude-opus-5'] },
    ],
  }),
  [
    {
      id: 'anthropic/claude-tiny-1',
      family: 'anthropic',
      deployments: [{ provider: 'sim-anthropic', model: 'claude-tiny-1' }],
      pricing: { input: 1, output: 5 },
      maxOutputTokens: 1024,
      reasoning: true,
    },
  ],
);
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

/** One call: the answer's JSON and the body the provider received. */
async function call(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown>; sent: Record<string, unknown> | undefined; text: string }> {
  await gw.clearSim();
  const r = await post(gw, body, { headers });
  const sent = (await upstreamCalls(gw))[0]?.body;
  return { status: r.status, json: JSON.parse(r.text) as Record<string, unknown>, sent, text: r.text };
}

t.test('every way to name a model reaches the right deployment; model echoes the request', async (t) => {
  const names: [string, string][] = [
    ['anthropic/claude-opus-5', 'claude-opus-5'],
    ['opus', 'claude-opus-5'],
    ['claude-opus-5', 'claude-opus-5'],
    ['sonnet', 'claude-sonnet-5'],
    ['claude-opus-4-8', 'claude-opus-4-8'],
    ['anthropic/claude-opus-4.8', 'claude-opus-4-8'],
    ['claude-opus-5-20261015', 'claude-opus-5'],
  ];
  for (const [value, upstream] of names) {
    const r = await call(msg(value));
    t.equal(r.status, 200, `${value}: ${r.text.slice(0, 200)}`);
    t.equal(r.sent?.model, upstream, `${value} → upstream ${upstream}`);
    t.equal(r.json.model, value, `${value}: response model echoes the request`);
    t.notOk('gateway' in r.json, `${value}: no gateway object on a plain direct call`);
  }
});

t.test('unknown and unbound ids: guided 400, no provider call', async (t) => {
  await gw.clearSim();
  const snap = expectError(t, await post(gw, msg('claude-sonnet-5-20261015')), 400, 'invalid_request_error', 'claude-sonnet-5-20261015');
  t.match(snap.error.message, /GET \/v1\/models/);
  const unknown = expectError(t, await post(gw, msg('claude-opus-6')), 400, 'invalid_request_error', '"claude-opus-6"');
  t.match(unknown.error.message, /Close matches: .*claude-opus-5/);
  t.match(unknown.error.message, /GET \/v1\/models/);
  t.match(unknown.error.message, /^model: /, 'names the path');
  t.same(await upstreamCalls(gw), []);
});

t.test('gateway-auto picks the first router candidate and says so', async (t) => {
  const r = await call(msg('gateway-auto'));
  t.equal(r.status, 200, r.text);
  t.equal(r.sent?.model, 'claude-sonnet-5');
  t.equal(r.json.model, 'gateway-auto');
  t.match(r.json.gateway, { routed: true, routed_model: 'anthropic/claude-sonnet-5', routing_latency_ms: Number });
});

t.test('gateway-auto streaming: the gateway object rides on message_start', async (t) => {
  const r = await post(gw, msg('gateway-auto', { stream: true }));
  t.equal(r.status, 200);
  const frames = parseSse(r.text);
  const start = dataOf(frames[0]);
  t.equal(frames[0]?.event, 'message_start');
  t.equal(start.message.model, 'gateway-auto');
  t.match(start.message.gateway, { routed: true, routed_model: 'anthropic/claude-sonnet-5' });
  t.equal(frames.at(-1)?.event, 'message_stop');
});

t.test('gateway-auto with replayed signed thinking is refused; a plain tool round trip is fine', async (t) => {
  await gw.clearSim();
  const thinking = {
    model: 'gateway-auto',
    max_tokens: 256,
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'c2ln' }, { type: 'text', text: 'hello' }] },
      { role: 'user', content: 'again' },
    ],
  };
  expectError(t, await post(gw, thinking), 400, 'invalid_request_error', 'Pin one explicit model');
  const redacted = structuredClone(thinking);
  (redacted.messages[1]!.content as unknown[])[0] = { type: 'redacted_thinking', data: 'abc' };
  expectError(t, await post(gw, redacted), 400, 'invalid_request_error', 'gateway-auto');
  t.same(await upstreamCalls(gw), []);
  const tools = [{ name: 'get_weather', description: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  const roundTrip = await call({
    model: 'gateway-auto',
    max_tokens: 256,
    tools,
    messages: [
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ],
  });
  t.equal(roundTrip.status, 200, roundTrip.text);
  t.match(roundTrip.json.content, [{ type: 'text', text: /sunny/ }]);
});

t.test("the key's model allowlist", async (t) => {
  await gw.clearSim();
  const denied = expectError(t, await post(gw, msg('sonnet'), { headers: { 'x-api-key': OPUS_ONLY } }), 403, 'permission_error', 'anthropic/claude-sonnet-5');
  t.match(denied.error.message, /^model: /);
  t.same(await upstreamCalls(gw), [], 'refused before the provider');
  const allowed = await call(msg('opus'), { 'x-api-key': OPUS_ONLY });
  t.equal(allowed.status, 200);
  const auto = await call(msg('gateway-auto'), { 'x-api-key': OPUS_ONLY });
  t.equal(auto.status, 200);
  t.equal(auto.sent?.model, 'claude-opus-5', 'gateway-auto skips candidates outside the allowlist');
  t.match(auto.json.gateway, { routed_model: 'anthropic/claude-opus-5' });
});

t.test('fast mode only where the catalog lists it (and only with its beta)', async (t) => {
  const fast = await call(msg('opus', { speed: 'fast' }), { 'anthropic-beta': FAST });
  t.equal(fast.status, 200, fast.text);
  t.equal(fast.sent?.speed, 'fast', 'forwarded');
  await gw.clearSim();
  const body = expectError(t, await post(gw, msg('sonnet', { speed: 'fast' }), { headers: { 'anthropic-beta': FAST } }), 400, 'invalid_request_error', 'capability_rejected: speed');
  t.match(body.error.message, /anthropic\/claude-sonnet-5/);
  t.same(await upstreamCalls(gw), []);
});

t.test('the native body keeps the client\'s bytes around the replaced values (spacing, multi-byte text)', async (t) => {
  await gw.clearSim();
  const text = 'café — 日本語 😀';
  const raw = `{ "model" : "opus", "messages": [ {"role":"user","content":${JSON.stringify(text)}} ],\n  "max_tokens" : 128000 }`;
  const r = await post(gw, null, { body: raw });
  t.equal(r.status, 200, r.text);
  const [up] = await upstreamCalls(gw);
  t.match(up?.body, { model: 'claude-opus-5', max_tokens: 64000, messages: [{ role: 'user', content: text }] }, 'model and cap replaced, the text intact');
});

t.test('max_tokens above the model maximum is capped, and reported', async (t) => {
  const r = await call(msg('opus', { max_tokens: 128000 }));
  t.equal(r.status, 200, r.text);
  t.equal(r.sent?.max_tokens, 64000, 'the provider received the cap');
  t.match(r.json.gateway, { routed: false, max_tokens_capped_to: 64000 });

  const stream = await post(gw, msg('opus', { max_tokens: 128000, stream: true }));
  const start = dataOf(parseSse(stream.text)[0]);
  t.match(start.message.gateway, { routed: false, max_tokens_capped_to: 64000 });
  t.equal(start.message.model, 'opus');

  const budget = await call(msg('opus', { max_tokens: 128000, thinking: { type: 'enabled', budget_tokens: 100000 } }));
  t.equal(budget.status, 200, budget.text);
  t.match(budget.sent, { max_tokens: 64000, thinking: { type: 'enabled', budget_tokens: 63999 } }, 'the thinking budget is reconciled');

  const kept = await call(msg('opus', { max_tokens: 128000, thinking: { type: 'enabled', budget_tokens: 2048 } }));
  t.match(kept.sent, { max_tokens: 64000, thinking: { budget_tokens: 2048 } }, 'a budget below the cap is kept');

  const uncapped = await call(msg('opus', { max_tokens: 64000 }));
  t.equal(uncapped.sent?.max_tokens, 64000);
  t.notOk('gateway' in uncapped.json, 'nothing to say at the maximum itself');

  await gw.clearSim();
  const squeezed = expectError(
    t,
    await post(gw, msg('anthropic/claude-tiny-1', { max_tokens: 8000, thinking: { type: 'enabled', budget_tokens: 4096 } })),
    400,
    'invalid_request_error',
    'thinking.budget_tokens',
  );
  t.match(squeezed.error.message, /1024/);
  t.same(await upstreamCalls(gw), [], 'a budget that cannot fit fails before the provider');
});
