// Chat Completions → Messages: one minimal request per mapping rule, with the exact upstream JSON.
// Every output also passes the Messages validator (harness messagesCall).
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { chat, messagesCall, rawMessagesCall, thrown, toMessages } from './harness.js';

const U = (content: JsonValue): JsonObject => ({ role: 'user', content });
const TOOLS = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { x: { type: 'integer' } } } } }];
const CALL = (id: string, args: string): JsonObject => ({ id, type: 'function', function: { name: 'f', arguments: args } });

t.test('minimal request: exact body, max_tokens from the model, no headers', async (t) => {
  const call = messagesCall(chat());
  t.equal(call.body, '{"model":"claude-opus-5-up","max_tokens":64000,"messages":[{"role":"user","content":"hi"}]}');
  t.same(call.headers, {});
  t.equal(call.stream, false);
  t.equal(toMessages(chat({ max_completion_tokens: 500 }), { maxTokens: 500 }).max_tokens, 500, 'the capped routed value');
});

t.test('system and developer: leading → top-level blocks, later → inline turns', async (t) => {
  const out = toMessages(chat({
    messages: [
      { role: 'system', content: 'A' },
      { role: 'developer', content: [{ type: 'text', text: 'B' }, { type: 'text', text: 'C' }] },
      U('hi'),
      { role: 'assistant', content: 'hello' },
      { role: 'developer', content: 'later' },
      { role: 'system', content: [{ type: 'text', text: 'parts' }] },
      U('bye'),
    ],
  }));
  t.same(out.system, [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }, { type: 'text', text: 'C' }]);
  t.same(out.messages, [
    U('hi'),
    { role: 'assistant', content: 'hello' },
    { role: 'system', content: 'later' },
    { role: 'system', content: [{ type: 'text', text: 'parts' }] },
    U('bye'),
  ]);
});

t.test('a conversation of system messages only is refused', async (t) => {
  const err = thrown(() => messagesCall(chat({ messages: [{ role: 'system', content: 'x' }] })));
  t.equal(err.code, 'GW_ERR_REQUEST_INVALID');
  t.equal(err.param, 'messages');
});

t.test('user parts: text, data URI image, URL image', async (t) => {
  const out = toMessages(chat({
    messages: [U([
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.webp' } },
    ])],
  }));
  t.same(out.messages, [U([
    { type: 'text', text: 'look' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
    { type: 'image', source: { type: 'url', url: 'https://example.com/cat.webp' } },
  ])]);
  const jpg = JSON.parse(rawMessagesCall(chat({ messages: [U([{ type: 'image_url', image_url: { url: 'data:image/jpg;base64,/9j/4AAQ' } }])] })).body) as JsonObject;
  t.same(jpg.messages, [U([{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } }])], 'image/jpg (refused by the Chat validator) is read as image/jpeg');
});

t.test('bad images (behind the Chat validator) and audio are refused at their path', async (t) => {
  const bad: [string, string][] = [
    ['data:image/bmp;base64,Qk0=', 'media type "image/bmp" is not supported'],
    ['data:image/png,rawbytes', 'must be a base64 data URI'],
    ['data:image/png;base64', 'is not a valid data URI'],
    ['ftp://example.com/a.png', 'must be an http(s) URL or a base64 data URI'],
  ];
  for (const [url, words] of bad) {
    const err = thrown(() => rawMessagesCall(chat({ messages: [U('x'), { role: 'assistant', content: 'y' }, U([{ type: 'text', text: 'a' }, { type: 'image_url', image_url: { url } }])] })));
    t.equal(err.code, 'GW_ERR_REQUEST_INVALID', url);
    t.equal(err.param, 'messages[2].content[1].image_url.url');
    t.match(err.message, words);
  }
  const audio = thrown(() => messagesCall(chat({ messages: [U([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }])] })));
  t.equal(audio.code, 'GW_ERR_CAPABILITY_REJECTED');
  t.equal(audio.param, 'messages[0].content[0]');
  t.match(audio.message, /^capability_rejected: messages\[0\]\.content\[0\]: audio input cannot be sent to the served model anthropic\/claude-opus-5/);
});

t.test('assistant tool calls and tool results: grouped, merged, alternating', async (t) => {
  const out = toMessages(chat({
    tools: TOOLS,
    messages: [
      U('go'),
      { role: 'assistant', content: null, tool_calls: [CALL('c1', '{"x":1}'), CALL('c2', '')] },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'l1' }, { type: 'text', text: 'l2' }] },
      U('and now?'),
      { role: 'assistant', content: 'Part one.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Part two.' }] },
    ],
  }));
  t.same(out.messages, [
    U('go'),
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'c1', name: 'f', input: { x: 1 } },
        { type: 'tool_use', id: 'c2', name: 'f', input: {} },
      ],
    },
    U([
      { type: 'tool_result', tool_use_id: 'c1', content: 'one' },
      { type: 'tool_result', tool_use_id: 'c2', content: 'l1\nl2' },
      { type: 'text', text: 'and now?' },
    ]),
    { role: 'assistant', content: [{ type: 'text', text: 'Part one.' }, { type: 'text', text: 'Part two.' }] },
  ]);
});

t.test('tool call arguments: bad JSON and non-objects are refused at their path', async (t) => {
  for (const args of ['{"x":', '[1,2]', '{"x":1,"x":2}', 'nope']) {
    const err = thrown(() => messagesCall(chat({ tools: TOOLS, messages: [U('go'), { role: 'assistant', content: 'ok', tool_calls: [CALL('c0', '{}'), CALL('c1', args)] }] })));
    t.equal(err.code, 'GW_ERR_REQUEST_INVALID', args);
    t.equal(err.param, 'messages[1].tool_calls[1].function.arguments');
  }
});

t.test('tools and tool_choice', async (t) => {
  const tools: JsonObject[] = [
    { type: 'function', function: { name: 'f', description: 'does f', parameters: { type: 'object', properties: {} }, strict: true } },
    { type: 'function', function: { name: 'g' } },
  ];
  t.same(toMessages(chat({ tools })).tools, [
    { name: 'f', description: 'does f', input_schema: { type: 'object', properties: {} } },
    { name: 'g', input_schema: { type: 'object', properties: {} } },
  ]);
  const cases: [JsonObject, JsonObject | undefined][] = [
    [{}, undefined],
    [{ tool_choice: 'auto' }, { type: 'auto' }],
    [{ tool_choice: 'none' }, { type: 'none' }],
    [{ tool_choice: 'required' }, { type: 'any' }],
    [{ tool_choice: { type: 'function', function: { name: 'g' } } }, { type: 'tool', name: 'g' }],
    [{ parallel_tool_calls: false }, { type: 'auto', disable_parallel_tool_use: true }],
    [{ parallel_tool_calls: true, tool_choice: 'required' }, { type: 'any' }],
    [{ parallel_tool_calls: false, tool_choice: 'required' }, { type: 'any', disable_parallel_tool_use: true }],
    [{ parallel_tool_calls: false, tool_choice: 'none' }, { type: 'none' }],
  ];
  for (const [extra, want] of cases) t.same(toMessages(chat({ tools, ...extra })).tool_choice, want, JSON.stringify(extra));
  const bare = toMessages(chat({ tools: [], tool_choice: 'auto', parallel_tool_calls: false }));
  t.same(Object.keys(bare), ['model', 'max_tokens', 'messages'], 'no tools: no tools, no tool_choice');
});

t.test('reasoning → thinking and output_config.effort', async (t) => {
  const cases: [JsonObject, JsonObject | undefined, string | undefined][] = [
    [{}, undefined, undefined],
    [{ reasoning_effort: 'none' }, undefined, undefined],
    [{ reasoning_effort: 'low' }, { type: 'adaptive' }, 'low'],
    [{ reasoning_effort: 'minimal' }, { type: 'adaptive' }, 'low'],
    [{ reasoning: { effort: 'medium' } }, { type: 'adaptive' }, 'medium'],
    [{ reasoning: { effort: 'high' } }, { type: 'adaptive' }, 'high'],
    [{ reasoning: { effort: 'xhigh' } }, { type: 'adaptive' }, 'xhigh'],
    [{ reasoning: { effort: 'low' }, reasoning_effort: 'high' }, { type: 'adaptive' }, 'low'],
    [{ reasoning: {}, reasoning_effort: 'high' }, { type: 'adaptive' }, undefined],
    [{ reasoning: { exclude: true, effort: 'medium' } }, { type: 'adaptive', display: 'omitted' }, 'medium'],
    [{ reasoning: { max_tokens: 8000 } }, { type: 'enabled', budget_tokens: 8000 }, undefined],
    [{ reasoning: { max_tokens: 100 } }, { type: 'enabled', budget_tokens: 1024 }, undefined],
    [{ reasoning: { max_tokens: 20000, exclude: true } }, { type: 'adaptive', display: 'omitted' }, 'high'],
  ];
  for (const [extra, thinking, effort] of cases) {
    // the model allows 16000 output tokens: a 20000 budget does not fit below max_tokens
    const out = toMessages(chat(extra), { modelMaxOutputTokens: 16000 });
    t.same([out.thinking, (out.output_config as JsonObject | undefined)?.effort], [thinking, effort], JSON.stringify(extra));
  }
  t.same(toMessages(chat({ reasoning: { max_tokens: 30000 } }), { thinkingBudget: 6000 }).thinking, { type: 'enabled', budget_tokens: 6000 }, 'the reconciled budget wins');
  const auto = toMessages(chat({ model: 'gateway-auto' }), { routed: true });
  t.same([auto.thinking, auto.output_config], [{ type: 'adaptive' }, { effort: 'high' }], 'auto-routed without reasoning: default effort high');
});

t.test('forced tool use never gets a manual budget', async (t) => {
  for (const tool_choice of ['required', { type: 'function', function: { name: 'f' } }] as JsonValue[]) {
    const out = toMessages(chat({ tools: TOOLS, tool_choice, reasoning: { max_tokens: 4000 } }));
    t.same([out.thinking, out.output_config], [{ type: 'adaptive' }, { effort: 'medium' }], JSON.stringify(tool_choice));
  }
  const auto = toMessages(chat({ tools: TOOLS, tool_choice: 'auto', reasoning: { max_tokens: 4000 } }));
  t.same(auto.thinking, { type: 'enabled', budget_tokens: 4000 });
});

t.test('sampling, stop, user, stream; dropped fields', async (t) => {
  const out = toMessages(chat({
    temperature: 1.6, top_p: 0.5, stop: ['END', ' '], user: 'u-1', stream: true,
    frequency_penalty: 1, presence_penalty: 1, seed: 7, logit_bias: { '1': 2 }, logprobs: true, n: 1,
    metadata: { call_name: 'x' }, prompt_cache_key: 'k', service_tier: 'auto', stream_options: { include_usage: true },
  }));
  t.same(out, {
    model: 'claude-opus-5-up', max_tokens: 64000, messages: [U('hi')],
    temperature: 1, top_p: 0.5, stop_sequences: ['END'], metadata: { user_id: 'u-1' }, stream: true,
  });
  t.same(toMessages(chat({ stop: 'STOP', temperature: 0.2, safety_identifier: 'safe', user: 'u' })), {
    model: 'claude-opus-5-up', max_tokens: 64000, messages: [U('hi')], temperature: 0.2, stop_sequences: ['STOP'], metadata: { user_id: 'safe' },
  }, 'safety_identifier wins over user');
  const thinking = toMessages(chat({ reasoning_effort: 'high', temperature: 0.7, top_p: 0.9 }));
  t.same([thinking.temperature, thinking.top_p], [undefined, undefined], 'with thinking: temperature ≠ 1 and top_p < 0.95 dropped');
  const kept = toMessages(chat({ reasoning_effort: 'high', temperature: 1, top_p: 0.97 }));
  t.same([kept.temperature, kept.top_p], [1, 0.97]);
  t.equal(messagesCall(chat({ stream: true })).stream, true);
});

t.test('response_format', async (t) => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  t.same(toMessages(chat({ response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema } } })).output_config, {
    format: { type: 'json_schema', schema, name: 'answer', strict: true },
  });
  t.same(toMessages(chat({ response_format: { type: 'json_schema', json_schema: { name: 'a', strict: null, schema } }, reasoning_effort: 'low' })).output_config, {
    effort: 'low', format: { type: 'json_schema', schema, name: 'a' },
  });
  const obj = toMessages(chat({ messages: [{ role: 'system', content: 'S' }, U('hi')], response_format: { type: 'json_object' } }));
  t.same(obj.system, [{ type: 'text', text: 'S' }, { type: 'text', text: 'Respond with a single JSON object and nothing else.' }]);
  t.equal(obj.output_config, undefined);
  t.same(toMessages(chat({ response_format: { type: 'json_object' } })).system, [{ type: 'text', text: 'Respond with a single JSON object and nothing else.' }]);
  t.same(Object.keys(toMessages(chat({ response_format: { type: 'text' } }))), ['model', 'max_tokens', 'messages']);
});

t.test('assistant refusal and plain reasoning', async (t) => {
  const out = toMessages(chat({
    messages: [
      U('q'),
      { role: 'assistant', content: null, refusal: 'I cannot help with that.', reasoning: 'plain text, no signature' },
      U('ok'),
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }, { type: 'text', text: 'Sorry.' }] },
      U('fine'),
    ],
  }));
  t.same(out.messages, [
    U('q'),
    { role: 'assistant', content: [{ type: 'text', text: 'I cannot help with that.' }] },
    U('ok'),
    { role: 'assistant', content: [{ type: 'text', text: 'No.' }, { type: 'text', text: 'Sorry.' }] },
    U('fine'),
  ]);
});
