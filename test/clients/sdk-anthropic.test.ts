// `@anthropic-ai/sdk` (1.12) against bin/gateway, used as a user would: only the base URL (the
// gateway URL without /v1) and the key change. The SDK sends `Authorization: Bearer` and
// `anthropic-version: 2026-10-21`; the config accepts that version (decisions §8), so no header is
// overridden. Behind the gateway: the simulated provider's demo model.
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';
import { simSignature } from '../../lib/sim/demo.js';
import { clientsConfig } from './config.js';

type Obj = Record<string, unknown>;

let gw: RunningGateway;
let client: Anthropic;
t.before(async () => {
  gw = await startGateway(
    withModels(clientsConfig(), [
      {
        id: 'anthropic/claude-busy',
        family: 'anthropic',
        deployments: [{ provider: 'sim-anthropic', model: 'fault:529' }],
        pricing: { input: 1, output: 5 },
        maxOutputTokens: 4096,
      },
    ]),
  );
  client = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0, timeout: 20_000 });
});
t.teardown(() => gw?.stop());

const tools: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

async function upstream(): Promise<Obj[]> {
  return (await gw.simRequests()).filter((r) => r.path === '/v1/messages').map((r) => r.body);
}

t.test('messages.create (non-streaming)', async (t) => {
  const m = await client.messages.create({ model: 'claude-opus-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] });
  t.equal(m.type, 'message');
  t.equal(m.role, 'assistant');
  t.equal(m.model, 'claude-opus-5');
  t.equal(m.stop_reason, 'end_turn');
  t.same(m.content, [{ type: 'text', text: 'Hello from claude-opus-5! You said: Hi' }]);
  t.ok(m.usage.input_tokens > 0 && m.usage.output_tokens > 0, 'usage');
  t.match(m._request_id, /^req_/, 'request id header read by the SDK');
});

t.test('messages.stream() to finalMessage()', async (t) => {
  const stream = client.messages.stream({ model: 'claude-opus-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Stream please' }] });
  const texts: string[] = [];
  stream.on('text', (d) => texts.push(d));
  const m = await stream.finalMessage();
  t.equal(m.stop_reason, 'end_turn');
  t.same(m.content, [{ type: 'text', text: 'Hello from claude-opus-5! You said: Stream please' }]);
  t.ok(texts.length > 1, `several text deltas (${texts.length})`);
  t.equal(texts.join(''), 'Hello from claude-opus-5! You said: Stream please');
  t.ok(m.usage.output_tokens > 0);
});

t.test('a two-turn tool round trip (create, then stream the follow-up)', async (t) => {
  await gw.clearSim();
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const first = await client.messages.create({ model: 'claude-opus-5', max_tokens: 1024, tools, messages });
  t.equal(first.stop_reason, 'tool_use');
  const call = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
  t.ok(call, 'a tool_use block');
  t.equal(call?.name, 'get_weather');
  t.same(call?.input, { city: 'x' });
  messages.push({ role: 'assistant', content: first.content });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.id, content: 'sunny, 21 C' }] });
  const second = await client.messages.stream({ model: 'claude-opus-5', max_tokens: 1024, tools, messages }).finalMessage();
  t.equal(second.stop_reason, 'end_turn');
  t.same(second.content, [{ type: 'text', text: 'Tool result received: sunny, 21 C' }]);
  const sent = await upstream();
  t.equal(sent.length, 2, 'two provider calls');
  t.match(sent[1]?.messages, [{}, { role: 'assistant', content: [{ type: 'tool_use', id: call!.id, name: 'get_weather' }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.id }] }]);
});

t.test('a thinking round trip sends the signed block back; a tampered signature is refused', async (t) => {
  await gw.clearSim();
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Use the weather tool for Oslo' }];
  const params = { model: 'claude-opus-5', max_tokens: 4096, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, tools };
  const first = await client.messages.stream({ ...params, messages }).finalMessage();
  const thinking = first.content.find((b): b is Anthropic.ThinkingBlock => b.type === 'thinking');
  t.ok(thinking, 'a thinking block');
  t.equal(thinking?.thinking, 'Thinking about: Use the weather tool for Oslo');
  t.equal(thinking?.signature, simSignature('claude-opus-5', thinking?.thinking ?? ''), 'the signature the provider made, unchanged');
  const call = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
  t.ok(call, 'and a tool call');

  const next: Anthropic.MessageParam[] = [
    ...messages,
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.id, content: 'snow' }] },
  ];
  const second = await client.messages.create({ ...params, messages: next });
  t.equal(second.stop_reason, 'end_turn');
  t.match(second.content.at(-1), { type: 'text', text: 'Tool result received: snow' });
  const sent = await upstream();
  t.equal(sent.length, 2);
  t.match((sent[1]?.messages as Obj[])[1], { role: 'assistant', content: [{ type: 'thinking', thinking: thinking!.thinking, signature: thinking!.signature }] }, 'the provider got the block byte-identical');

  const tampered = structuredClone(next);
  ((tampered[1]!.content as unknown as Obj[])[0] as Obj).signature = `${thinking!.signature.slice(0, -4)}AAA=`;
  const err = await client.messages.create({ ...params, messages: tampered }).catch((e: unknown) => e);
  t.type(err, Anthropic.BadRequestError, 'the SDK raises its typed 400');
  t.match((err as InstanceType<typeof Anthropic.APIError>).message, /Invalid signature in thinking block/);
});

t.test('errors surface as the SDK typed errors', async (t) => {
  const bad = await client.messages.create({ model: 'claude-nope-9', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
  t.type(bad, Anthropic.BadRequestError, 'unknown model: BadRequestError');
  t.equal((bad as InstanceType<typeof Anthropic.APIError>).status, 400);
  t.match((bad as InstanceType<typeof Anthropic.APIError>).error, { type: 'error', error: { type: 'invalid_request_error', message: /unknown model "claude-nope-9"/ } });
  t.match((bad as InstanceType<typeof Anthropic.APIError>).requestID, /^req_/);

  const anon = new Anthropic({ apiKey: 'sk-not-a-key', baseURL: gw.url, maxRetries: 0 });
  const auth = await anon.messages.create({ model: 'claude-opus-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
  t.type(auth, Anthropic.AuthenticationError, 'bad key: AuthenticationError');

  const busy = await client.messages.create({ model: 'claude-busy', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
  t.type(busy, Anthropic.OverloadedError, 'provider overloaded: OverloadedError');
  t.equal((busy as InstanceType<typeof Anthropic.APIError>).status, 529);
  t.ok((busy as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after'), 'with retry-after');

  const streamed = await client.messages.stream({ model: 'claude-nope-9', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage().catch((e: unknown) => e);
  t.type(streamed, Anthropic.BadRequestError, 'the stream helper raises the same typed error');
});

t.test('models.list()', async (t) => {
  const ids: string[] = [];
  for await (const m of client.models.list()) ids.push(m.id);
  for (const id of ['anthropic/claude-opus-5', 'anthropic/claude-sonnet-5', 'anthropic/claude-opus-5.5']) t.ok(ids.includes(id), `lists ${id}`);
  t.notOk(ids.includes('openai/gpt-5'), 'with anthropic-version: the Anthropic family only');
  const page = await client.models.list({ limit: 2 });
  t.equal(page.data.length, 2);
  t.equal(page.has_more, true);
  t.match(page.data[0], { id: String, type: 'model', display_name: String, created_at: String });
});
