// POST /v1/responses against the real gateway and the simulated providers: JSON and named-SSE
// answers from all three deployment kinds (Anthropic Messages, OpenAI Chat, OpenAI Responses), the
// function-call round trip, and reasoning round trips that carry the signed state back.
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { parseSse, upstreamCalls } from '../helpers/messages.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const config = withModels(baseConfig(), [
  { id: 'openai/gpt-5-mini', deployments: [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }], pricing: { input: 0.25, output: 2 }, input: ['text', 'image'], reasoning: true, family: 'openai' },
  { id: 'test/redacted', family: 'anthropic', deployments: [{ provider: 'sim-anthropic', model: 'claude-sonnet-5;redacted' }], pricing: { input: 3, output: 15 }, input: ['text'], reasoning: true },
  { id: 'fx/max-tokens', family: 'anthropic', deployments: [{ provider: 'fx-max-tokens', model: 'claude-sonnet-4-20250514' }], pricing: { input: 3, output: 15 } },
  { id: 'fx/incomplete', family: 'openai', deployments: [{ provider: 'fx-incomplete', model: 'gpt-4o-2024-08-06', api: 'responses' }], pricing: { input: 3, output: 15 } },
  { id: 'fx/reset-mid', family: 'anthropic', deployments: [{ provider: 'sim-anthropic', model: 'fault:reset-mid' }], pricing: { input: 3, output: 15 } },
  { id: 'fx/fault-400', family: 'anthropic', deployments: [{ provider: 'sim-anthropic', model: 'fault:400' }], pricing: { input: 3, output: 15 } },
]);
config.providers = [
  ...(config.providers as Obj[]),
  { id: 'fx-max-tokens', protocol: 'anthropic', simulated: true, timeoutMs: 5000, headers: { 'x-sim-model': 'fixture:anthropic/max-tokens.sse' } },
  { id: 'fx-incomplete', protocol: 'openai', simulated: true, timeoutMs: 5000, headers: { 'x-sim-model': 'fixture:openai-responses/incomplete-max-output-tokens.json' } },
];
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

async function post(body: Obj): Promise<{ status: number; text: string; headers: Headers }> {
  const r = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, text: await r.text(), headers: r.headers };
}

interface Ev {
  event: string | undefined;
  data: Obj;
}

function sse(text: string): Ev[] {
  return parseSse(text).map((f) => ({ event: f.event, data: JSON.parse(f.data) as Obj }));
}

const WEATHER = { type: 'function', name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

const MODELS = [
  { model: 'anthropic/claude-sonnet-5', path: '/v1/messages' },
  { model: 'openai/gpt-5', path: '/v1/chat/completions' },
  { model: 'openai/gpt-5-mini', path: '/v1/responses' },
];

for (const { model, path } of MODELS) {
  t.test(`JSON answer from ${path} (${model})`, async (t) => {
    await gw.clearSim();
    const r = await post({ model, input: 'Hello there', instructions: 'Be brief.', metadata: { call_name: 'json-test' } });
    t.equal(r.status, 200, r.text.slice(0, 400));
    t.match(r.headers.get('content-type'), /^application\/json/);
    const body = JSON.parse(r.text) as Obj;
    t.match(body, { object: 'response', status: 'completed', model, error: null, incomplete_details: null, store: false, previous_response_id: null, instructions: 'Be brief.', truncation: 'disabled', service_tier: null });
    t.match(body.id, /^resp_/);
    const message = body.output.find((o: Obj) => o.type === 'message');
    t.match(message, { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', annotations: [] }] });
    t.match(message.content[0].text, /Hello there/);
    t.ok(body.usage.input_tokens > 0 && body.usage.output_tokens > 0, 'usage');
    t.equal(body.usage.total_tokens, body.usage.input_tokens + body.usage.output_tokens);
    t.type(body.usage.input_tokens_details.cached_tokens, 'number');
    t.type(body.usage.output_tokens_details.reasoning_tokens, 'number');
    t.match(body.gateway, { routed: false, routed_model: null, routing_latency_ms: null });
    t.ok(body.gateway.cost > 0, 'cost reported in USD');
    const [call] = await upstreamCalls(gw);
    t.equal(call?.path, path);
    if (path === '/v1/responses') {
      t.match(call?.body, { model: 'gpt-5-mini', input: 'Hello there', instructions: 'Be brief.', store: false });
      t.notOk('metadata' in (call?.body ?? {}), 'gateway-only fields dropped');
    }
  });

  t.test(`streamed answer from ${path} (${model})`, async (t) => {
    await gw.clearSim();
    const r = await post({ model, input: [{ role: 'user', content: 'Hello there' }], stream: true, tools: [WEATHER], tool_choice: 'none' });
    t.equal(r.status, 200, r.text.slice(0, 400));
    t.match(r.headers.get('content-type'), /^text\/event-stream/);
    const evs = sse(r.text);
    t.ok(evs.every((e) => e.event === e.data.type), 'event line = data.type');
    t.same(evs.map((e) => e.data.sequence_number), evs.map((_e, i) => i), 'sequence_number from 0');
    t.equal(evs[0]?.event, 'response.created');
    t.match(evs[0]?.data.response, { status: 'in_progress', output: [], usage: null });
    t.equal(evs[1]?.event, 'response.in_progress');
    const last = evs.at(-1)!;
    t.equal(last.event, 'response.completed');
    t.match(last.data.response, { status: 'completed', model });
    t.ok(last.data.response.usage.output_tokens > 0);
    t.ok(last.data.response.gateway.cost > 0);
    t.ok(evs.slice(0, -1).every((e) => e.data.response?.usage == null), 'usage only on the terminal event');
    const text = evs.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta as string).join('');
    t.match(text, /Hello there/);
    const done = evs.find((e) => e.event === 'response.output_text.done');
    t.equal(done?.data.text, text);
    const names = evs.map((e) => e.event);
    for (const n of ['response.output_item.added', 'response.content_part.added', 'response.content_part.done', 'response.output_item.done']) t.ok(names.includes(n), n);
  });

  t.test(`function-call round trip (${model})`, async (t) => {
    await gw.clearSim();
    const first = await post({ model, input: 'What is the weather in Paris?', tools: [WEATHER], tool_choice: 'required' });
    t.equal(first.status, 200, first.text.slice(0, 400));
    const body = JSON.parse(first.text) as Obj;
    const call = body.output.find((o: Obj) => o.type === 'function_call');
    t.match(call, { type: 'function_call', status: 'completed', name: 'get_weather' });
    t.match(call.id, /^fc_/);
    t.type(call.call_id, 'string');
    t.same(Object.keys(JSON.parse(call.arguments)), ['city']);
    const second = await post({
      model,
      stream: true,
      tools: [WEATHER],
      input: ['What is the weather in Paris?', ...body.output, { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 C' }].map((x) =>
        typeof x === 'string' ? { role: 'user', content: x } : x,
      ),
    });
    t.equal(second.status, 200, second.text.slice(0, 400));
    const evs = sse(second.text);
    t.equal(evs.at(-1)?.event, 'response.completed');
    const text = evs.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta as string).join('');
    t.match(text, /Sunny, 21 C/, 'the model saw the tool result');
  });

  t.test(`streamed function call (${model})`, async (t) => {
    const r = await post({ model, input: 'weather?', tools: [WEATHER], tool_choice: { type: 'function', name: 'get_weather' }, stream: true });
    t.equal(r.status, 200, r.text.slice(0, 400));
    const evs = sse(r.text);
    const args = evs.filter((e) => e.event === 'response.function_call_arguments.delta').map((e) => e.data.delta as string).join('');
    const done = evs.find((e) => e.event === 'response.function_call_arguments.done');
    t.equal(done?.data.arguments, args);
    t.same(Object.keys(JSON.parse(args)), ['city']);
    const item = evs.find((e) => e.event === 'response.output_item.done' && e.data.item.type === 'function_call');
    t.match(item?.data.item, { name: 'get_weather', arguments: args, status: 'completed' });
    t.equal(evs.at(-1)?.event, 'response.completed');
  });
}

t.test('reasoning round trip on a Claude model: encrypted_content carries the signed thinking', async (t) => {
  await gw.clearSim();
  const req = { model: 'anthropic/claude-sonnet-5', input: 'Think about this', reasoning: { effort: 'high', summary: 'auto' }, include: ['reasoning.encrypted_content'], stream: true };
  const r = await post(req);
  t.equal(r.status, 200, r.text.slice(0, 400));
  const evs = sse(r.text);
  const done = evs.at(-1)!;
  t.equal(done.event, 'response.completed');
  const reasoning = done.data.response.output.find((o: Obj) => o.type === 'reasoning');
  t.ok(reasoning, 'a reasoning item');
  t.match(reasoning.encrypted_content, /^anthropic-thinking:/);
  const summary = evs.filter((e) => e.event === 'response.reasoning_summary_text.delta').map((e) => e.data.delta as string).join('');
  t.ok(summary.length > 0, 'summary streamed');
  t.equal(reasoning.summary[0].text, summary);
  const [up] = await upstreamCalls(gw);
  t.match(up?.body, { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });

  await gw.clearSim();
  const next = await post({ ...req, stream: false, input: [{ role: 'user', content: 'Think about this' }, ...done.data.response.output, { role: 'user', content: 'And again' }] });
  t.equal(next.status, 200, next.text.slice(0, 400));
  const [up2] = await upstreamCalls(gw);
  const assistant = (up2?.body.messages as Obj[]).find((m) => m.role === 'assistant');
  t.equal(assistant?.content[0].type, 'thinking', 'the thinking block went back');
  t.equal(assistant?.content[0].thinking, summary, 'byte-identical thinking');

  // a tampered state is refused by the provider: the signature really is checked
  const tampered = { ...reasoning, encrypted_content: 'anthropic-thinking:' + Buffer.from(JSON.stringify({ type: 'thinking', thinking: 'other', signature: 'bad' })).toString('base64url') };
  const bad = await post({ ...req, stream: false, input: [{ role: 'user', content: 'x' }, tampered, { role: 'user', content: 'y' }] });
  t.equal(bad.status, 400, bad.text.slice(0, 300));
});

t.test('without include, no encrypted_content is returned', async (t) => {
  const r = await post({ model: 'anthropic/claude-sonnet-5', input: 'Think', reasoning: { effort: 'low' } });
  t.equal(r.status, 200, r.text.slice(0, 400));
  const reasoning = (JSON.parse(r.text) as Obj).output.find((o: Obj) => o.type === 'reasoning');
  t.ok(reasoning);
  t.notOk('encrypted_content' in reasoning);
  t.ok(reasoning.summary[0].text.length > 0);
});

t.test('redacted thinking round trip', async (t) => {
  await gw.clearSim();
  const req = { model: 'test/redacted', input: 'Think', reasoning: { effort: 'medium' }, include: ['reasoning.encrypted_content'] };
  const r = await post(req);
  t.equal(r.status, 200, r.text.slice(0, 400));
  const out = (JSON.parse(r.text) as Obj).output as Obj[];
  const reasoning = out.find((o) => o.type === 'reasoning');
  t.match(reasoning, { summary: [], encrypted_content: /^anthropic-thinking:/ });
  await gw.clearSim();
  const next = await post({ ...req, input: [{ role: 'user', content: 'Think' }, ...out, { role: 'user', content: 'more' }] });
  t.equal(next.status, 200, next.text.slice(0, 400));
  const [up] = await upstreamCalls(gw);
  const assistant = (up?.body.messages as Obj[]).find((m) => m.role === 'assistant');
  t.equal(assistant?.content[0].type, 'redacted_thinking');
});

t.test('reasoning round trip on a Responses deployment: the original encrypted_content comes back', async (t) => {
  await gw.clearSim();
  const req = { model: 'openai/gpt-5-mini', input: 'Think about this', reasoning: { effort: 'medium', summary: 'auto' }, include: ['reasoning.encrypted_content'], stream: true };
  const r = await post(req);
  t.equal(r.status, 200, r.text.slice(0, 400));
  const evs = sse(r.text);
  const done = evs.at(-1)!;
  t.equal(done.event, 'response.completed');
  const reasoning = done.data.response.output.find((o: Obj) => o.type === 'reasoning');
  t.match(reasoning.id, /^rs_sim_/, 'the provider item id');
  t.type(reasoning.encrypted_content, 'string');
  t.notMatch(reasoning.encrypted_content, /^(oai-rs|anthropic-thinking):/, "the provider's own encrypted_content");
  const added = evs.find((e) => e.event === 'response.output_item.added' && e.data.item.type === 'reasoning');
  t.equal(added?.data.item.id, reasoning.id, 'same id on added and done');

  await gw.clearSim();
  const next = await post({ ...req, stream: false, input: [{ role: 'user', content: 'Think about this' }, ...done.data.response.output, { role: 'user', content: 'again' }] });
  t.equal(next.status, 200, next.text.slice(0, 400)); // the sim verifies encrypted_content against the summary
  const [up] = await upstreamCalls(gw);
  const item = (up?.body.input as Obj[]).find((i) => i.type === 'reasoning');
  t.equal(item?.encrypted_content, reasoning.encrypted_content, 'byte-identical');

  // a tampered summary no longer verifies
  const tampered = { ...reasoning, summary: [{ type: 'summary_text', text: 'changed' }] };
  const bad = await post({ ...req, stream: false, input: [{ role: 'user', content: 'x' }, tampered, { role: 'user', content: 'y' }] });
  t.equal(bad.status, 400, bad.text.slice(0, 300));
});

t.test('Claude thinking is not sent to an OpenAI Responses deployment', async (t) => {
  const first = await post({ model: 'anthropic/claude-sonnet-5', input: 'Think', reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] });
  const out = (JSON.parse(first.text) as Obj).output as Obj[];
  await gw.clearSim();
  const r = await post({ model: 'openai/gpt-5-mini', input: [{ role: 'user', content: 'Think' }, ...out, { role: 'user', content: 'next' }] });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const [up] = await upstreamCalls(gw);
  t.notOk((up?.body.input as Obj[]).some((i) => i.type === 'reasoning'), 'dropped');
});

t.test('gateway-auto: routed, default effort high, session pinning', async (t) => {
  await gw.clearSim();
  const r = await post({ input: 'Hello there', session_id: 'sess-1' });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const body = JSON.parse(r.text) as Obj;
  t.equal(body.gateway.routed, true);
  t.type(body.gateway.routed_model, 'string');
  t.equal(body.model, body.gateway.routed_model, 'model = the served catalog id');
  t.type(body.gateway.routing_latency_ms, 'number');
  t.equal(body.reasoning.effort, 'high');
  const [up] = await upstreamCalls(gw);
  t.match(up?.body, { output_config: { effort: 'high' } });
});

t.test('cut at max_output_tokens: response.incomplete (stream) and status incomplete (JSON)', async (t) => {
  const r = await post({ model: 'fx/max-tokens', input: 'Hello', stream: true });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const evs = sse(r.text);
  t.equal(evs.at(-1)?.event, 'response.incomplete');
  t.match(evs.at(-1)?.data.response, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  t.ok(evs.at(-1)?.data.response.usage.output_tokens > 0);
  const j = await post({ model: 'fx/incomplete', input: 'Hello' });
  t.equal(j.status, 200, j.text.slice(0, 300));
  t.match(JSON.parse(j.text), { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
});

t.test('an upstream failure after the stream began ends it with response.failed', async (t) => {
  const r = await post({ model: 'fx/reset-mid', input: 'Hello there', stream: true });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const evs = sse(r.text);
  t.equal(evs[0]?.event, 'response.created');
  t.equal(evs.at(-1)?.event, 'response.failed');
  t.match(evs.at(-1)?.data.response, { status: 'failed', error: { code: String, message: String } });
  t.notOk(evs.some((e) => e.event === 'response.completed'));
});

t.test('an upstream failure before any byte is a JSON error', async (t) => {
  const r = await post({ model: 'fx/fault-400', input: 'Hello there', stream: true });
  t.equal(r.status, 400, r.text.slice(0, 300));
  t.match(r.headers.get('content-type'), /^application\/json/);
  t.type((JSON.parse(r.text) as Obj).error.code, 'string');
});

t.test('custom tools through a Claude model round-trip as custom_tool_call', async (t) => {
  const custom = { type: 'custom', name: 'apply_patch', description: 'patch files', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } };
  await gw.clearSim();
  const r = await post({ model: 'anthropic/claude-sonnet-5', input: 'patch it', tools: [custom], tool_choice: 'required', stream: true });
  t.equal(r.status, 200, r.text.slice(0, 400));
  const evs = sse(r.text);
  const item = evs.find((e) => e.event === 'response.output_item.done' && e.data.item.type === 'custom_tool_call')?.data.item;
  t.match(item, { type: 'custom_tool_call', name: 'apply_patch', status: 'completed' });
  t.type(item?.input, 'string');
  t.ok(evs.some((e) => e.event === 'response.custom_tool_call_input.done'));
  const [up] = await upstreamCalls(gw);
  t.match(up?.body.tools, [{ name: 'apply_patch', input_schema: { properties: { input: { type: 'string' } } } }]);
  await gw.clearSim();
  const next = await post({
    model: 'anthropic/claude-sonnet-5',
    tools: [custom],
    input: [{ role: 'user', content: 'patch it' }, item, { type: 'custom_tool_call_output', call_id: item.call_id, output: 'Done!' }],
  });
  t.equal(next.status, 200, next.text.slice(0, 300));
  const [up2] = await upstreamCalls(gw);
  const msgs = up2?.body.messages as Obj[];
  t.match(msgs[1], { role: 'assistant', content: [{ type: 'tool_use', name: 'apply_patch', input: { input: item.input } }] });
  t.match(msgs[2], { role: 'user', content: [{ type: 'tool_result', tool_use_id: item.call_id, content: 'Done!' }] });
});
