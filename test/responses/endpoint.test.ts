// POST /v1/responses against the real gateway and the simulated providers: JSON and named-SSE
// answers from all three deployment kinds (Anthropic Messages, OpenAI Chat, OpenAI Responses), the
// function-call round trip, gateway-auto, cut and failed responses, custom tools. (Reasoning round
// trips: reasoning.test.ts.)
import t from 'tap';
import { upstreamCalls } from '../helpers/messages.js';
import { responsesGateway, type Obj } from './harness.js';

const h = responsesGateway();

const WEATHER = { type: 'function', name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

const MODELS = [
  { model: 'anthropic/claude-sonnet-5', path: '/v1/messages' },
  { model: 'openai/gpt-5', path: '/v1/chat/completions' },
  { model: 'openai/gpt-5-mini', path: '/v1/responses' },
];

for (const { model, path } of MODELS) {
  t.test(`JSON answer from ${path} (${model})`, async (t) => {
    await h.gw.clearSim();
    const r = await h.post({ model, input: 'Hello there', instructions: 'Be brief.', metadata: { call_name: 'json-test' } });
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
    const [call] = await upstreamCalls(h.gw);
    t.equal(call?.path, path);
    if (path === '/v1/responses') {
      t.match(call?.body, { model: 'gpt-5-mini', input: 'Hello there', instructions: 'Be brief.', store: false });
      t.notOk('metadata' in (call?.body ?? {}), 'gateway-only fields dropped');
    }
  });

  t.test(`streamed answer from ${path} (${model})`, async (t) => {
    await h.gw.clearSim();
    const r = await h.post({ model, input: [{ role: 'user', content: 'Hello there' }], stream: true, tools: [WEATHER], tool_choice: 'none' });
    t.equal(r.status, 200, r.text.slice(0, 400));
    t.match(r.headers.get('content-type'), /^text\/event-stream/);
    const evs = h.sse(r.text);
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
    await h.gw.clearSim();
    const first = await h.post({ model, input: 'What is the weather in Paris?', tools: [WEATHER], tool_choice: 'required' });
    t.equal(first.status, 200, first.text.slice(0, 400));
    const body = JSON.parse(first.text) as Obj;
    const call = body.output.find((o: Obj) => o.type === 'function_call');
    t.match(call, { type: 'function_call', status: 'completed', name: 'get_weather' });
    t.match(call.id, /^fc_/);
    t.type(call.call_id, 'string');
    t.same(Object.keys(JSON.parse(call.arguments)), ['city']);
    const second = await h.post({
      model,
      stream: true,
      tools: [WEATHER],
      input: ['What is the weather in Paris?', ...body.output, { type: 'function_call_output', call_id: call.call_id, output: 'Sunny, 21 C' }].map((x) =>
        typeof x === 'string' ? { role: 'user', content: x } : x,
      ),
    });
    t.equal(second.status, 200, second.text.slice(0, 400));
    const evs = h.sse(second.text);
    t.equal(evs.at(-1)?.event, 'response.completed');
    const text = evs.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta as string).join('');
    t.match(text, /Sunny, 21 C/, 'the model saw the tool result');
  });

  t.test(`streamed function call (${model})`, async (t) => {
    const r = await h.post({ model, input: 'weather?', tools: [WEATHER], tool_choice: { type: 'function', name: 'get_weather' }, stream: true });
    t.equal(r.status, 200, r.text.slice(0, 400));
    const evs = h.sse(r.text);
    const args = evs.filter((e) => e.event === 'response.function_call_arguments.delta').map((e) => e.data.delta as string).join('');
    const done = evs.find((e) => e.event === 'response.function_call_arguments.done');
    t.equal(done?.data.arguments, args);
    t.same(Object.keys(JSON.parse(args)), ['city']);
    const item = evs.find((e) => e.event === 'response.output_item.done' && e.data.item.type === 'function_call');
    t.match(item?.data.item, { name: 'get_weather', arguments: args, status: 'completed' });
    t.equal(evs.at(-1)?.event, 'response.completed');
  });
}

t.test('gateway-auto: routed, default effort high, session pinning', async (t) => {
  await h.gw.clearSim();
  const r = await h.post({ input: 'Hello there', session_id: 'sess-1' });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const body = JSON.parse(r.text) as Obj;
  t.equal(body.gateway.routed, true);
  t.type(body.gateway.routed_model, 'string');
  t.equal(body.model, body.gateway.routed_model, 'model = the served catalog id');
  t.type(body.gateway.routing_latency_ms, 'number');
  t.equal(body.reasoning.effort, 'high');
  const [up] = await upstreamCalls(h.gw);
  t.match(up?.body, { output_config: { effort: 'high' } });
});

t.test('cut at max_output_tokens: response.incomplete (stream) and status incomplete (JSON)', async (t) => {
  const r = await h.post({ model: 'fx/max-tokens', input: 'Hello', stream: true });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const evs = h.sse(r.text);
  t.equal(evs.at(-1)?.event, 'response.incomplete');
  t.match(evs.at(-1)?.data.response, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  t.ok(evs.at(-1)?.data.response.usage.output_tokens > 0);
  const j = await h.post({ model: 'fx/incomplete', input: 'Hello' });
  t.equal(j.status, 200, j.text.slice(0, 300));
  t.match(JSON.parse(j.text), { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
});

t.test('an upstream failure after the stream began ends it with response.failed', async (t) => {
  const r = await h.post({ model: 'fx/reset-mid', input: 'Hello there', stream: true });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const evs = h.sse(r.text);
  t.equal(evs[0]?.event, 'response.created');
  t.equal(evs.at(-1)?.event, 'response.failed');
  t.match(evs.at(-1)?.data.response, { status: 'failed', error: { code: String, message: String } });
  t.notOk(evs.some((e) => e.event === 'response.completed'));
});

t.test('an upstream failure before any byte is a JSON error', async (t) => {
  const r = await h.post({ model: 'fx/fault-400', input: 'Hello there', stream: true });
  t.equal(r.status, 400, r.text.slice(0, 300));
  t.match(r.headers.get('content-type'), /^application\/json/);
  t.type((JSON.parse(r.text) as Obj).error.code, 'string');
});

t.test('custom tools through a Claude model round-trip as custom_tool_call', async (t) => {
  const custom = { type: 'custom', name: 'apply_patch', description: 'patch files', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } };
  await h.gw.clearSim();
  const r = await h.post({ model: 'anthropic/claude-sonnet-5', input: 'patch it', tools: [custom], tool_choice: 'required', stream: true });
  t.equal(r.status, 200, r.text.slice(0, 400));
  const evs = h.sse(r.text);
  const item = evs.find((e) => e.event === 'response.output_item.done' && e.data.item.type === 'custom_tool_call')?.data.item;
  t.match(item, { type: 'custom_tool_call', name: 'apply_patch', status: 'completed' });
  t.type(item?.input, 'string');
  t.ok(evs.some((e) => e.event === 'response.custom_tool_call_input.done'));
  const [up] = await upstreamCalls(h.gw);
  t.match(up?.body.tools, [{ name: 'apply_patch', input_schema: { properties: { input: { type: 'string' } } } }]);
  await h.gw.clearSim();
  const next = await h.post({
    model: 'anthropic/claude-sonnet-5',
    tools: [custom],
    input: [{ role: 'user', content: 'patch it' }, item, { type: 'custom_tool_call_output', call_id: item.call_id, output: 'Done!' }],
  });
  t.equal(next.status, 200, next.text.slice(0, 300));
  const [up2] = await upstreamCalls(h.gw);
  const msgs = up2?.body.messages as Obj[];
  t.match(msgs[1], { role: 'assistant', content: [{ type: 'tool_use', name: 'apply_patch', input: { input: item.input } }] });
  t.match(msgs[2], { role: 'user', content: [{ type: 'tool_result', tool_use_id: item.call_id, content: 'Done!' }] });
});
