// The round-trip rule (decisions §10) with the official SDKs' own helpers, named: what
// `chat.completions.stream().finalChatCompletion()` and `.parse()` return (an assistant message
// carrying `parsed`, `refusal`, `annotations`, a call's `parsed_arguments`) and what
// `responses.parse()` returns (output items with ids, status, `parsed` and `parsed_arguments`) go
// back as history; those fields are accepted and never reach the provider. Unknown fields elsewhere
// are still refused at their path. The Anthropic SDK's `messages.stream().finalMessage()` and
// `messages.parse()` content goes back as the assistant turn. Also `function_call_output` text
// parts, concatenated.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, withModels, type RunningGateway } from '../helpers/gateway.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let gw: RunningGateway;
let openai: OpenAI;
t.before(async () => {
  gw = await startGateway(withModels(baseConfig(), [
    { id: 'openai/gpt-5-mini', family: 'openai', deployments: [{ provider: 'sim-openai', model: 'gpt-5-mini', api: 'responses' }], pricing: { input: 0.25, output: 2 }, input: ['text'], reasoning: true },
  ]));
  openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0, timeout: 20_000 });
});
t.teardown(() => gw?.stop());

const STRICT_WEATHER: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', strict: true, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } },
};

async function lastUpstream(): Promise<Obj> {
  return (await gw.simRequests()).at(-1)!.body as Obj;
}

for (const model of ['gpt-5', 'claude-opus-5']) {
  t.test(`${model}: chat.completions.stream().finalChatCompletion() message sent back (issue #17: "messages[1].parsed: unknown field")`, async (t) => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hi' }];
    const first = await openai.chat.completions.stream({ model, messages }).finalChatCompletion();
    const msg = first.choices[0]!.message;
    t.ok('parsed' in msg, 'the helper added parsed');
    messages.push(msg as OpenAI.Chat.ChatCompletionMessageParam, { role: 'user', content: 'Again' });
    await gw.clearSim();
    const second = await openai.chat.completions.create({ model, messages });
    t.equal(second.choices[0]?.finish_reason, 'stop');
    const sent = await lastUpstream();
    t.notMatch(JSON.stringify(sent), /"parsed"/, 'parsed never reaches the provider');
  });

  t.test(`${model}: chat.completions.parse() with a strict tool: parsed_arguments sent back`, async (t) => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.chat.completions.parse({ model, messages, tools: [STRICT_WEATHER] });
    const msg = first.choices[0]!.message as Obj;
    t.same(msg.tool_calls?.[0]?.function.parsed_arguments, { city: 'x' }, 'the helper parsed the arguments');
    // what a returned message may also carry back (decisions §10)
    messages.push({ ...msg, annotations: [], audio: null, function_call: null } as unknown as OpenAI.Chat.ChatCompletionMessageParam);
    messages.push({ role: 'tool', tool_call_id: msg.tool_calls[0].id, content: 'sunny' });
    await gw.clearSim();
    const second = await openai.chat.completions.create({ model, messages, tools: [STRICT_WEATHER] });
    t.equal(second.choices[0]?.message.content, 'Tool result received: sunny');
    const sent = JSON.stringify(await lastUpstream());
    for (const field of ['parsed', 'parsed_arguments', 'annotations', 'function_call', 'audio', 'refusal']) t.notMatch(sent, new RegExp(`"${field}"`), `${field} not forwarded`);
  });
}

for (const model of ['claude-opus-5', 'gpt-5']) {
  t.test(`${model}: messages.stream().finalMessage() and messages.parse() content sent back`, async (t) => {
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gw.url, maxRetries: 0 });
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
    for (const helper of ['stream', 'parse'] as const) {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Think, then get the weather' }];
      const params = { model, max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, tools, messages };
      const first = helper === 'stream' ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.parse(params);
      const call = first.content.find((b) => b.type === 'tool_use');
      t.ok(call, `${helper}: a tool call`);
      // a Chat upstream shows no reasoning text; Claude's signed thinking goes back with the call
      if (model === 'claude-opus-5') t.ok(first.content.some((b) => b.type === 'thinking'), `${helper}: with its thinking`);
      messages.push({ role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.id, content: 'sunny' }] });
      const second = await anthropic.messages.create({ ...params, messages });
      t.match(second.content.find((b) => b.type === 'text'), { text: 'Tool result received: sunny' }, `${helper}: the next turn is answered`);
    }
  });
}

t.test('Chat: what the gateway never returns is still refused at its path', async (t) => {
  const history = (extra: Obj) => [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello', ...extra }, { role: 'user', content: 'Again' }] as OpenAI.Chat.ChatCompletionMessageParam[];
  for (const [extra, path] of [
    [{ audio: { id: 'audio_1' } }, 'messages[1].audio'],
    [{ function_call: { name: 'f', arguments: '{}' } }, 'messages[1].function_call'],
    [{ annotations: 'none' }, 'messages[1].annotations'],
    [{ parsed_output: null }, 'messages[1].parsed_output'],
  ] as const) {
    const err = await openai.chat.completions.create({ model: 'gpt-5', messages: history(extra) }).catch((e: unknown) => e);
    t.type(err, OpenAI.BadRequestError, path);
    t.match((err as InstanceType<typeof OpenAI.APIError>).message, path);
  }
});

t.test('Responses: responses.parse() output items sent back as input (ids, status, parsed, parsed_arguments)', async (t) => {
  const tools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', strict: true, parameters: STRICT_WEATHER.function.parameters! }];
  for (const model of ['gpt-5-mini', 'gpt-5', 'claude-opus-5']) {
    const input: Obj[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await openai.responses.parse({ model, input: input as OpenAI.Responses.ResponseInput, tools });
    const call = first.output.find((o) => o.type === 'function_call') as Obj | undefined;
    t.ok(call && 'parsed_arguments' in call && typeof call.id === 'string' && call.status === 'completed', `${model}: a function_call with id, status and parsed_arguments`);
    input.push(...(first.output as Obj[]), { type: 'function_call_output', call_id: call!.call_id, output: 'sunny' });
    await gw.clearSim();
    const second = await openai.responses.create({ model, input: input as OpenAI.Responses.ResponseInput, tools });
    t.equal(second.status, 'completed', `${model}: accepted`);
    const sent = JSON.stringify(await lastUpstream());
    t.notMatch(sent, /"parsed(_arguments)?"/, `${model}: the parse results do not reach the provider`);
  }
});

t.test('Responses: function_call_output given as input_text parts is concatenated with no separator', async (t) => {
  for (const [model, read] of [
    ['gpt-5', (b: Obj) => (b.messages as Obj[]).find((m) => m.role === 'tool')?.content],
    ['claude-opus-5', (b: Obj) => (b.messages as Obj[]).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((c: Obj) => c.type === 'tool_result')?.content],
  ] as const) {
    const input = [
      { role: 'user', content: 'Weather?' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'sun' }, { type: 'input_text', text: 'ny' }] },
    ];
    await gw.clearSim();
    const r = await openai.responses.create({ model, input: input as OpenAI.Responses.ResponseInput, tools: [{ type: 'function', name: 'get_weather', strict: false, parameters: { type: 'object', properties: {} } }] });
    t.equal(r.status, 'completed');
    const got = read(await lastUpstream());
    t.equal(typeof got === 'string' ? got : JSON.stringify(got), 'sunny', `${model}: the provider reads "sunny"`);
  }
});
