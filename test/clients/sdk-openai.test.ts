// `openai` (7.57) Chat Completions against bin/gateway, used as a user would: only the base URL
// (`<gateway>/v1`) and the key change. Each case runs on a model served by an Anthropic-protocol
// deployment (`claude-opus-5`, translated) and one served by an OpenAI-Chat deployment (`gpt-5`).
import OpenAI from 'openai';
import t from 'tap';
import { startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { simSignature } from '../../lib/sim/demo.js';
import { clientsConfig } from './config.js';

type Obj = Record<string, unknown>;

let gw: RunningGateway;
let client: OpenAI;
t.before(async () => {
  gw = await startGateway(clientsConfig());
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0, timeout: 20_000 });
});
t.teardown(() => gw?.stop());

const DEPLOYMENTS = [
  { model: 'claude-opus-5', catalog: 'anthropic/claude-opus-5', upstream: 'claude-opus-5', path: '/v1/messages' },
  { model: 'gpt-5', catalog: 'openai/gpt-5', upstream: 'gpt-5', path: '/v1/chat/completions' },
] as const;

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

async function upstream(path: string): Promise<Obj[]> {
  return (await gw.simRequests()).filter((r) => r.path === path).map((r) => r.body);
}

for (const d of DEPLOYMENTS) {
  t.test(`${d.model} (${d.path} upstream)`, async (t) => {
    t.test('chat.completions.create', async (t) => {
      await gw.clearSim();
      const c = await client.chat.completions.create({ model: d.model, messages: [{ role: 'user', content: 'Hi' }] });
      t.equal(c.object, 'chat.completion');
      t.equal(c.model, d.catalog, 'the catalog id of the serving model');
      t.equal(c.choices[0]?.finish_reason, 'stop');
      t.equal(c.choices[0]?.message.content, `Hello from ${d.upstream}! You said: Hi`);
      t.ok((c.usage?.prompt_tokens ?? 0) > 0 && (c.usage?.completion_tokens ?? 0) > 0, 'usage');
      t.equal((await upstream(d.path)).length, 1, `served through ${d.path}`);
    });

    t.test('streaming: create({stream}) and the stream() helper', async (t) => {
      const s = await client.chat.completions.create({ model: d.model, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Stream' }] });
      let text = '';
      let finish: string | null | undefined;
      let usage: OpenAI.CompletionUsage | null | undefined;
      let chunks = 0;
      for await (const chunk of s) {
        chunks++;
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      t.equal(text, `Hello from ${d.upstream}! You said: Stream`);
      t.equal(finish, 'stop');
      t.ok(chunks > 2, `${chunks} chunks`);
      t.ok((usage?.completion_tokens ?? 0) > 0, 'the usage chunk');

      const helper = client.chat.completions.stream({ model: d.model, messages: [{ role: 'user', content: 'Helper' }], stream_options: { include_usage: true } });
      const final = await helper.finalChatCompletion();
      t.equal(final.choices[0]?.message.content, `Hello from ${d.upstream}! You said: Helper`);
      t.ok((final.usage?.total_tokens ?? 0) > 0);
    });

    t.test('a tool round trip (the assistant message sent back as received)', async (t) => {
      await gw.clearSim();
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await client.chat.completions.create({ model: d.model, messages, tools });
      t.equal(first.choices[0]?.finish_reason, 'tool_calls');
      const msg = first.choices[0]!.message;
      const call = msg.tool_calls?.[0];
      t.ok(call && call.type === 'function', 'a function call');
      if (!call || call.type !== 'function') return;
      t.equal(call.function.name, 'get_weather');
      t.same(JSON.parse(call.function.arguments), { city: 'x' });
      messages.push(msg as OpenAI.Chat.ChatCompletionMessageParam);
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'sunny' });
      const stream = client.chat.completions.stream({ model: d.model, messages, tools });
      const second = await stream.finalChatCompletion();
      t.equal(second.choices[0]?.finish_reason, 'stop');
      t.equal(second.choices[0]?.message.content, 'Tool result received: sunny');
      t.equal((await upstream(d.path)).length, 2);
    });

    t.test('a reasoning round trip', async (t) => {
      await gw.clearSim();
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Think, then check the weather' }];
      const first = await client.chat.completions.create({ model: d.model, messages, tools, reasoning_effort: 'low' });
      const msg = first.choices[0]!.message as OpenAI.Chat.ChatCompletionMessage & { reasoning?: string | null; reasoning_details?: Obj[] | null };
      const call = msg.tool_calls?.[0];
      t.ok(call, 'a tool call');
      messages.push(msg as OpenAI.Chat.ChatCompletionMessageParam);
      messages.push({ role: 'tool', tool_call_id: call!.id, content: 'rain' });
      const second = await client.chat.completions.create({ model: d.model, messages, tools, reasoning_effort: 'low' });
      t.equal(second.choices[0]?.message.content, 'Tool result received: rain');
      const sent = await upstream(d.path);
      t.equal(sent.length, 2);
      if (d.path === '/v1/messages') {
        const thinking = 'Thinking about: Think, then check the weather';
        t.equal(msg.reasoning, thinking, 'the reasoning text');
        t.match(msg.reasoning_details, [{ type: 'reasoning.text', text: thinking, signature: simSignature(d.upstream, thinking) }], 'signed reasoning returned');
        t.match(sent[0]?.thinking, { type: /^(adaptive|enabled)$/ }, 'reasoning_effort became thinking');
        t.match((sent[1]?.messages as Obj[])[1], { role: 'assistant', content: [{ type: 'thinking', thinking, signature: simSignature(d.upstream, thinking) }] }, 'and went back to the provider as the signed block');
      } else {
        t.ok((first.usage?.completion_tokens_details?.reasoning_tokens ?? 0) > 0, 'reasoning tokens reported');
        t.equal(sent[0]?.reasoning_effort, 'low', 'reasoning_effort forwarded');
        t.equal(sent[1]?.reasoning_effort, 'low');
      }
    });
  });
}

t.test('models.list()', async (t) => {
  const ids: string[] = [];
  for await (const m of client.models.list()) ids.push(m.id);
  for (const id of ['gateway-auto', 'anthropic/claude-opus-5', 'openai/gpt-5', 'anthropic/claude-opus-5.5']) t.ok(ids.includes(id), `lists ${id}`);
  const page = await client.models.list();
  t.match(page.data[0], { id: String, object: 'model', owned_by: String, created: Number });
});

t.test('errors surface as the SDK typed errors', async (t) => {
  const bad = await client.chat.completions.create({ model: 'nope-1', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
  t.type(bad, OpenAI.BadRequestError);
  t.match((bad as InstanceType<typeof OpenAI.APIError>).message, /unknown model "nope-1"/);
  const anon = new OpenAI({ apiKey: 'sk-not-a-key', baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const auth = await anon.chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
  t.type(auth, OpenAI.AuthenticationError);
});
