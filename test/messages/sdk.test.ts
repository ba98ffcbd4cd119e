// The official `@anthropic-ai/sdk` (1.12: Bearer auth, `anthropic-version: 2026-10-21`) against
// bin/gateway: create, stream → finalMessage, a tool round trip, a signed-thinking round trip (and a
// tampered signature), typed errors, and models.list().
import Anthropic, { APIError, AuthenticationError, BadRequestError, NotFoundError, OverloadedError, RateLimitError } from '@anthropic-ai/sdk';
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { upstreamCalls } from '../helpers/messages.js';

const model = (id: string, upstream: string): Record<string, unknown> => ({
  id,
  family: 'anthropic',
  deployments: [{ provider: 'sim-anthropic', model: upstream }],
  pricing: { input: 1, output: 5 },
});
const config = withModels(baseConfig(), [model('test/limited', 'fault:429;retry-after=1'), model('test/overloaded', 'fault:529'), model('test/broken-stream', 'fault:malformed-sse')]);

let gw: RunningGateway;
let client: Anthropic;
t.before(async () => {
  gw = await startGateway(config);
  client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
});
t.teardown(() => gw?.stop());

const USER = [{ role: 'user' as const, content: 'Hello from the SDK' }];

t.test('messages.create, non-streaming', async (t) => {
  await gw.clearSim();
  const m = await client.messages.create({ model: 'claude-opus-5', max_tokens: 256, messages: USER });
  t.equal(m.type, 'message');
  t.equal(m.role, 'assistant');
  t.equal(m.model, 'claude-opus-5', 'the requested model echoed');
  t.equal(m.stop_reason, 'end_turn');
  t.match(m.content, [{ type: 'text', text: 'Hello from claude-opus-5! You said: Hello from the SDK' }]);
  t.ok(m.usage.input_tokens > 0 && m.usage.output_tokens > 0);
  const [call] = await upstreamCalls(gw);
  t.equal(call?.headers['anthropic-version'], '2023-06-01', 'the SDK sent 2026-10-21; the provider got 2023-06-01');
});

t.test('messages.stream() → finalMessage(), and the raw event stream', async (t) => {
  const stream = client.messages.stream({ model: 'opus', max_tokens: 256, messages: USER });
  const texts: string[] = [];
  stream.on('text', (d) => texts.push(d));
  const final = await stream.finalMessage();
  t.equal(final.model, 'opus');
  t.equal(final.stop_reason, 'end_turn');
  t.match(final.content, [{ type: 'text', text: 'Hello from claude-opus-5! You said: Hello from the SDK' }]);
  t.equal(texts.join(''), (final.content[0] as Anthropic.TextBlock).text, 'text deltas add up to the final text');

  const raw = await client.messages.create({ model: 'opus', max_tokens: 256, messages: USER, stream: true });
  const types: string[] = [];
  for await (const ev of raw) types.push(ev.type);
  t.equal(types[0], 'message_start');
  t.equal(types.at(-1), 'message_stop');
});

t.test('a tool round trip in two turns', async (t) => {
  const tools: Anthropic.Tool[] = [
    { name: 'get_weather', description: 'Weather for a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  ];
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris? Use get_weather.' }];
  const first = await client.messages.create({ model: 'sonnet', max_tokens: 512, tools, messages });
  t.equal(first.stop_reason, 'tool_use');
  const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
  t.ok(use, 'a tool_use block');
  t.equal(use?.name, 'get_weather');
  t.match(use?.input, { city: String });
  messages.push({ role: 'assistant', content: first.content });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: '18°C and sunny' }] });
  const second = await client.messages.stream({ model: 'sonnet', max_tokens: 512, tools, messages }).finalMessage();
  t.equal(second.stop_reason, 'end_turn');
  t.match(second.content, [{ type: 'text', text: 'Tool result received: 18°C and sunny' }]);
});

t.test('a thinking round trip: the signed block goes back; a tampered one is a BadRequestError', async (t) => {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Think first, then answer.' }];
  const params = { model: 'opus', max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 } };
  const first = await client.messages.stream({ ...params, messages }).finalMessage();
  const thinking = first.content.find((b): b is Anthropic.ThinkingBlock => b.type === 'thinking');
  t.ok(thinking, 'a thinking block');
  t.ok(thinking?.signature, 'signed');
  messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: 'And now?' });
  const second = await client.messages.create({ ...params, messages });
  t.equal(second.stop_reason, 'end_turn', 'the provider verified the signature it made');
  t.match(second.content, [{ type: 'thinking' }, { type: 'text', text: /And now\?/ }]);

  const tampered = structuredClone(messages);
  const blocks = tampered[1]!.content as Anthropic.ContentBlockParam[];
  const block = blocks.find((b) => b.type === 'thinking') as Anthropic.ThinkingBlockParam;
  block.signature = Buffer.from('tampered').toString('base64');
  const err = await client.messages.create({ ...params, messages: tampered }).catch((e: unknown) => e);
  t.type(err, BadRequestError);
  t.equal((err as APIError).status, 400);
  t.match((err as APIError).message, /Invalid signature in thinking block/);
  t.ok((err as APIError).requestID, 'the request id is readable');
});

t.test('typed errors', async (t) => {
  const bad = new Anthropic({ apiKey: 'sk-not-a-key', baseURL: gw.url, maxRetries: 0 });
  const auth = await bad.messages.create({ model: 'opus', max_tokens: 16, messages: USER }).catch((e: unknown) => e);
  t.type(auth, AuthenticationError);
  t.equal((auth as APIError).status, 401);

  const count = await client.messages.countTokens({ model: 'opus', messages: USER }).catch((e: unknown) => e);
  t.type(count, NotFoundError, 'count_tokens: NotFoundError, no guessed count');
  t.match((count as APIError).message, /Token counting is not available/);

  const invalid = await client.messages.create({ model: 'no-such-model', max_tokens: 16, messages: USER }).catch((e: unknown) => e);
  t.type(invalid, BadRequestError);
  t.match((invalid as APIError).message, /GET \/v1\/models/);

  const limited = await client.messages.create({ model: 'test/limited', max_tokens: 16, messages: USER }).catch((e: unknown) => e);
  t.type(limited, RateLimitError);
  t.equal((limited as APIError).headers?.get('retry-after'), '1');

  const overloaded = await client.messages.create({ model: 'test/overloaded', max_tokens: 16, messages: USER }).catch((e: unknown) => e);
  t.type(overloaded, OverloadedError);

  const midStream = await client.messages
    .stream({ model: 'test/broken-stream', max_tokens: 64, messages: USER })
    .finalMessage()
    .catch((e: unknown) => e);
  t.type(midStream, APIError, 'an in-stream error event surfaces as an APIError');
  t.match((midStream as APIError).type, 'api_error');
});

t.test('models.list()', async (t) => {
  const ids: string[] = [];
  for await (const m of client.models.list()) ids.push(m.id);
  t.ok(ids.includes('anthropic/claude-opus-5'), ids.join(', '));
  t.notOk(ids.includes('openai/gpt-5'), 'only the Anthropic family for a Messages client');
  const one = await client.models.list({ limit: 1 });
  t.equal(one.data.length, 1);
  t.equal(one.has_more, true);
});
