// POST /v1/messages to a model served by an OpenAI Chat Completions deployment: the request is
// translated to Chat, the answer (JSON or stream) back to the Messages shape.
import t from 'tap';
import { baseConfig, startGateway, withModels, type RunningGateway } from '../helpers/gateway.js';
import { dataOf, events, expectError, msg, parseSse, post, upstreamCalls } from '../helpers/messages.js';

const config = withModels(baseConfig(), [
  { id: 'test/openai-limited', family: 'openai', deployments: [{ provider: 'sim-openai', model: 'fault:429', api: 'chat' }], pricing: { input: 1, output: 5 } },
  {
    id: 'test/cross-failover',
    family: 'anthropic',
    deployments: [
      { provider: 'sim-anthropic', model: 'fault:529' },
      { provider: 'sim-openai', model: 'gpt-5', api: 'chat' },
    ],
    pricing: { input: 1, output: 5 },
  },
]);
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const HELLO = 'Hello from gpt-5! You said: Hello there';
const TOOLS = [{ name: 'get_weather', description: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];

t.test('non-streaming: a Chat deployment answers in the Messages shape', async (t) => {
  await gw.clearSim();
  const r = await post(gw, msg('openai/gpt-5', { system: 'Be brief.' }), { headers: { 'anthropic-beta': 'fast-mode-2026-02-01' } });
  t.equal(r.status, 200, r.text.slice(0, 300));
  const body = JSON.parse(r.text);
  t.match(body, { type: 'message', role: 'assistant', model: 'openai/gpt-5', stop_reason: 'end_turn', content: [{ type: 'text', text: HELLO }] });
  // one JSON document: sent whole, with its length (not chunked)
  t.equal(r.headers.get('content-length'), String(Buffer.byteLength(r.text)), 'content-length is the body length');
  t.equal(r.headers.get('transfer-encoding'), null, 'not chunked');
  t.ok(body.usage.input_tokens > 0 && body.usage.output_tokens > 0, 'usage translated');
  t.match(body.id, /^msg_/, 'a Messages id');
  const [call] = await upstreamCalls(gw);
  t.equal(call?.path, '/v1/chat/completions');
  t.match(call?.body, { model: 'gpt-5', messages: [{ role: 'system' }, { role: 'user' }] });
  t.equal(call?.headers.authorization, 'Bearer sim-key', "the provider's own key");
  t.equal(call?.headers['x-api-key'], undefined);
  t.equal(call?.headers['anthropic-beta'], undefined, 'betas are for anthropic deployments only');
});

t.test('streaming: Messages events with event: lines, usage asked for upstream', async (t) => {
  await gw.clearSim();
  const r = await post(gw, msg('gpt-5', { stream: true }));
  t.equal(r.status, 200, r.text.slice(0, 300));
  t.match(r.headers.get('content-type'), /^text\/event-stream/);
  const frames = parseSse(r.text);
  t.ok(frames.every((f) => f.event !== undefined && dataOf(f).type === f.event), 'named events, data.type = event');
  t.equal(frames[0]?.event, 'message_start');
  t.equal(dataOf(frames[0]).message.model, 'gpt-5');
  t.equal(frames.at(-1)?.event, 'message_stop');
  t.ok(events(frames).includes('message_delta'));
  const text = frames
    .filter((f) => f.event === 'content_block_delta')
    .map((f) => dataOf(f).delta.text as string)
    .join('');
  t.equal(text, HELLO);
  const [call] = await upstreamCalls(gw);
  t.match(call?.body, { stream: true, stream_options: { include_usage: true } });
});

t.test('a tool round trip through the translation', async (t) => {
  const first = await post(gw, { model: 'openai/gpt-5', max_tokens: 256, tools: TOOLS, messages: [{ role: 'user', content: 'weather in Paris? use get_weather' }] });
  t.equal(first.status, 200, first.text.slice(0, 300));
  const m = JSON.parse(first.text);
  t.equal(m.stop_reason, 'tool_use');
  const use = m.content.find((b: { type: string }) => b.type === 'tool_use');
  t.match(use, { id: String, name: 'get_weather', input: { city: String } });
  const second = await post(gw, {
    model: 'openai/gpt-5',
    max_tokens: 256,
    tools: TOOLS,
    messages: [
      { role: 'user', content: 'weather in Paris? use get_weather' },
      { role: 'assistant', content: m.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
    ],
  });
  t.equal(second.status, 200, second.text.slice(0, 300));
  t.match(JSON.parse(second.text).content, [{ type: 'text', text: 'Tool result received: sunny' }]);
});

t.test('an OpenAI upstream error in the Messages envelope', async (t) => {
  const r = await post(gw, msg('test/openai-limited'));
  expectError(t, r, 429, 'rate_limit_error');
  t.ok(r.headers.get('retry-after'), 'retry-after');
});

t.test('failover from an anthropic deployment to a chat deployment', async (t) => {
  await gw.clearSim();
  const r = await post(gw, msg('test/cross-failover', { stream: true }));
  t.equal(r.status, 200, r.text.slice(0, 300));
  t.equal(parseSse(r.text).at(-1)?.event, 'message_stop');
  t.same(
    (await upstreamCalls(gw)).map((c) => c.path),
    ['/v1/messages', '/v1/chat/completions'],
  );
});
