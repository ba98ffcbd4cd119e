// Messages → Chat Completions: one minimal request per mapping rule, with the exact upstream JSON.
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { chatCall, msg, thrown, toChat } from './harness.js';

const U = (content: JsonValue): JsonObject => ({ role: 'user', content });
const PNG = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };

t.test('minimal request: exact body, no headers, no betas', async (t) => {
  const call = chatCall(msg());
  t.equal(call.body, '{"model":"gpt-5-up","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":1000}');
  t.same(call.headers, {}, 'betas and anthropic-* headers are not forwarded');
  t.equal(call.stream, false);
});

t.test('system: string, text blocks (order kept, cache_control dropped), inline system turns', async (t) => {
  t.same(toChat({ ...msg(), system: 'Be brief.' }).messages, [{ role: 'system', content: 'Be brief.' }, U('hi')]);
  const blocks: JsonObject = {
    ...msg(),
    system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }],
  };
  t.same(toChat(blocks).messages, [
    { role: 'system', content: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }] },
    U('hi'),
  ]);
  const single = { ...msg(), system: [{ type: 'text', text: 'A', cache_control: { type: 'ephemeral', ttl: '1h' } }] };
  t.same((toChat(single).messages as JsonObject[])[0], { role: 'system', content: 'A' }, 'one text block → a string');
  const inline = {
    ...msg(),
    system: 'top',
    messages: [
      U('hi'),
      { role: 'system', content: [{ type: 'text', text: 'env', cache_control: { type: 'ephemeral' } }], output_config: { effort: 'low' } },
      { role: 'assistant', content: 'hello' },
      { role: 'system', content: 'later' },
      U('bye'),
    ],
  };
  const out = toChat(inline);
  t.same(out.messages, [
    { role: 'system', content: 'top' },
    U('hi'),
    { role: 'system', content: 'env' },
    { role: 'assistant', content: 'hello' },
    { role: 'system', content: 'later' },
    U('bye'),
  ], 'inline system turns stay in place; their output_config is dropped');
  t.equal(out.reasoning_effort, undefined, 'a per-turn effort sets no request effort');
});

t.test('user content: single text → string, several parts, images', async (t) => {
  t.same(toChat({ ...msg(), messages: [U([{ type: 'text', text: 'one', cache_control: { type: 'ephemeral' } }])] }).messages, [U('one')]);
  const parts: JsonObject[] = [
    { type: 'text', text: 'look' },
    { type: 'image', source: PNG },
    { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    { type: 'text', text: 'twice' },
  ];
  t.same(toChat({ ...msg(), messages: [U(parts)] }).messages, [
    U([
      { type: 'text', text: 'look' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
      { type: 'text', text: 'twice' },
    ]),
  ]);
  t.same(toChat({ ...msg(), messages: [U([{ type: 'image', source: PNG }])] }).messages, [
    U([{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }]),
  ], 'a lone image stays a parts array');
});

/** user → assistant tool_use (ids a, b) → user `content` */
function round(content: JsonValue, extra: JsonObject = {}): JsonObject {
  return {
    ...msg(),
    tools: [{ name: 'f', input_schema: { type: 'object' } }],
    messages: [
      U('go'),
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'f', input: { x: 1 } },
          { type: 'tool_use', id: 'b', name: 'f', input: {} },
        ],
      },
      U(content),
    ],
    ...extra,
  };
}

t.test('tool_result → tool messages before the rest of the user turn', async (t) => {
  const out = toChat(round([
    { type: 'tool_result', tool_use_id: 'a', content: 'one', cache_control: { type: 'ephemeral' } },
    { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'l1' }, { type: 'text', text: 'l2' }] },
    { type: 'text', text: 'and now?' },
  ]));
  t.same((out.messages as JsonObject[]).slice(1), [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
        { id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'a', content: 'one' },
    { role: 'tool', tool_call_id: 'b', content: 'l1\nl2' },
    U('and now?'),
  ]);
});

t.test('tool_result: is_error prefix, empty content, images moved to a user message', async (t) => {
  const out = toChat(round([
    { type: 'tool_result', tool_use_id: 'a', content: 'boom', is_error: true },
    { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'shot' }, { type: 'image', source: PNG }], is_error: false },
  ]));
  t.same((out.messages as JsonObject[]).slice(2), [
    { role: 'tool', tool_call_id: 'a', content: 'Error: boom' },
    { role: 'tool', tool_call_id: 'b', content: 'shot' },
    U([
      { type: 'text', text: 'Images returned by tool call b:' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ]),
  ]);
  const empty = toChat(round([{ type: 'tool_result', tool_use_id: 'a' }, { type: 'tool_result', tool_use_id: 'b', content: [] }]));
  t.same((empty.messages as JsonObject[]).slice(2), [
    { role: 'tool', tool_call_id: 'a', content: '' },
    { role: 'tool', tool_call_id: 'b', content: '' },
  ], 'no content → empty string; no user message when nothing else is left');
});

t.test('assistant: text, tool calls; thinking and server-tool blocks dropped', async (t) => {
  const body: JsonObject = {
    ...msg(),
    tools: [{ name: 'f', input_schema: { type: 'object' } }],
    messages: [
      U('q'),
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'server_tool_use', id: 'srv_1', name: 'web_search', input: { query: 'x' } },
          { type: 'web_search_tool_result', tool_use_id: 'srv_1', content: [] },
          { type: 'text', text: 'Found it.', citations: [{ type: 'web_search_result_location', url: 'u' }] },
          { type: 'tool_use', id: 't1', name: 'f', input: { q: 'ü "x"' } },
        ],
      },
      U([{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }]),
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'only', signature: 's2' }] },
      U('next'),
      { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
    ],
  };
  const call = chatCall(body);
  t.notMatch(call.body, /thinking|signature|redacted|web_search/, 'nothing of thinking or server tools reaches the chat model');
  t.same((JSON.parse(call.body) as JsonObject).messages, [
    U('q'),
    {
      role: 'assistant',
      content: 'Found it.',
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"q":"ü \\"x\\""}' } }],
    },
    { role: 'tool', tool_call_id: 't1', content: 'ok' },
    U('next'),
    { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
  ], 'a turn of only thinking is dropped; several text blocks stay parts');
});

t.test('tools: custom tools as functions, schema as is, defer_loading kept', async (t) => {
  const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
  const body: JsonObject = {
    ...msg(),
    tools: [
      { name: 'one', description: 'first', input_schema: schema, cache_control: { type: 'ephemeral' }, strict: true },
      { type: 'custom', name: 'two', input_schema: { type: 'object', properties: {} }, defer_loading: true, eager_input_streaming: true },
    ],
  };
  t.same(toChat(body).tools, [
    { type: 'function', function: { name: 'one', description: 'first', parameters: schema } },
    { type: 'function', function: { name: 'two', parameters: { type: 'object', properties: {} } } },
  ]);
  const none = toChat({ ...msg(), tools: [], tool_choice: { type: 'auto', disable_parallel_tool_use: true } });
  t.same(Object.keys(none), ['model', 'messages', 'max_completion_tokens'], 'no tools: tools, tool_choice and parallel_tool_calls left out');
});

t.test('hosted tools are refused with capability_rejected at tools[i]', async (t) => {
  const hosted: JsonObject[] = [
    { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    { type: 'web_fetch_20250910', name: 'web_fetch' },
    { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' },
    { type: 'advisor_20260301', name: 'advisor', model: 'claude-opus-5', max_uses: 2 },
  ];
  for (const tool of hosted) {
    const err = thrown(() => chatCall({ ...msg(), tools: [{ name: 'f', input_schema: { type: 'object' } }, tool] }, { modelId: 'openai/gpt-5' }));
    t.equal(err.code, 'GW_ERR_CAPABILITY_REJECTED', String(tool.type));
    t.equal(err.status, 400);
    t.equal(err.param, 'tools[1]');
    t.equal(err.message, `capability_rejected: tools[1]: "${String(tool.type)}" is an Anthropic server tool; the served model openai/gpt-5 cannot run it. Remove the tool or pin a Claude model.`);
  }
});

t.test('tool_choice and disable_parallel_tool_use', async (t) => {
  const tools = [{ name: 'f', input_schema: { type: 'object' } }];
  const cases: [JsonObject, JsonObject][] = [
    [{ type: 'auto' }, { tool_choice: 'auto' }],
    [{ type: 'any' }, { tool_choice: 'required' }],
    [{ type: 'none' }, { tool_choice: 'none' }],
    [{ type: 'tool', name: 'f' }, { tool_choice: { type: 'function', function: { name: 'f' } } }],
    [{ type: 'auto', disable_parallel_tool_use: true }, { tool_choice: 'auto', parallel_tool_calls: false }],
    [{ type: 'any', disable_parallel_tool_use: false }, { tool_choice: 'required' }],
  ];
  for (const [choice, want] of cases) {
    const out = toChat({ ...msg(), tools, tool_choice: choice });
    t.same({ tool_choice: out.tool_choice, parallel_tool_calls: out.parallel_tool_calls }, { parallel_tool_calls: undefined, ...want }, JSON.stringify(choice));
  }
});

t.test('thinking and effort → reasoning_effort', async (t) => {
  const cases: [JsonObject, string | undefined, number | null][] = [
    [{}, undefined, null],
    [{ thinking: { type: 'disabled' } }, undefined, null],
    [{ thinking: { type: 'adaptive' } }, 'high', null],
    [{ thinking: { type: 'adaptive', display: 'omitted' }, output_config: { effort: 'low' } }, 'low', null],
    [{ output_config: { effort: 'medium' } }, 'medium', null],
    [{ output_config: { effort: 'high' } }, 'high', null],
    [{ output_config: { effort: 'xhigh' } }, 'high', null],
    [{ output_config: { effort: 'max' } }, 'high', null],
    [{ output_config: { effort: 'minimal' } }, 'minimal', null],
    [{ thinking: { type: 'enabled', budget_tokens: 16000 }, max_tokens: 32000 }, 'high', null],
    [{ thinking: { type: 'enabled', budget_tokens: 15999 }, max_tokens: 32000 }, 'medium', null],
    [{ thinking: { type: 'enabled', budget_tokens: 20000 }, max_tokens: 32000 }, 'medium', 8000],
  ];
  for (const [extra, want, budget] of cases) {
    const out = toChat({ ...msg(), ...extra }, { thinkingBudget: budget });
    t.equal(out.reasoning_effort, want, JSON.stringify(extra) + (budget === null ? '' : ` (reconciled budget ${budget})`));
  }
});

t.test('output_config.format → response_format', async (t) => {
  const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false };
  const plain = toChat({ ...msg(), output_config: { effort: 'medium', format: { type: 'json_schema', schema } } });
  t.same(plain.response_format, { type: 'json_schema', json_schema: { name: 'response', schema } });
  t.equal(plain.reasoning_effort, 'medium');
  const named = toChat({ ...msg(), output_config: { format: { type: 'json_schema', schema, name: 'title_v1', strict: true } } });
  t.same(named.response_format, { type: 'json_schema', json_schema: { name: 'title_v1', schema, strict: true } });
  const odd = toChat({ ...msg(), output_config: { format: { type: 'json_schema', schema, name: 'my title.v2', strict: false } } });
  t.same(odd.response_format, { type: 'json_schema', json_schema: { name: 'my_title_v2', schema, strict: false } }, 'a name OpenAI refuses is sanitised');
});

t.test('sampling, limits, stop, user', async (t) => {
  const body = {
    ...msg(),
    max_tokens: 128000,
    temperature: 0.3,
    top_p: 0.9,
    top_k: 40,
    stop_sequences: ['END', 'STOP'],
    metadata: { user_id: '{"device_id":"d"}' },
  };
  t.same(toChat(body, { maxTokens: 64000 }), {
    model: 'gpt-5-up',
    messages: [U('hi')],
    max_completion_tokens: 64000,
    temperature: 0.3,
    top_p: 0.9,
    stop: ['END', 'STOP'],
    user: '{"device_id":"d"}',
  }, 'capped max_tokens; top_k dropped');
  t.equal(toChat({ ...msg(), metadata: { user_id: null } }).user, undefined, 'null user_id → no user');
  t.equal(toChat({ ...msg(), stop_sequences: [] }).stop, undefined, 'no sequences → no stop');
});

t.test('stream always asks for usage', async (t) => {
  const call = chatCall({ ...msg(), stream: true });
  t.equal(call.stream, true);
  t.same(JSON.parse(call.body), { model: 'gpt-5-up', messages: [U('hi')], max_completion_tokens: 1000, stream: true, stream_options: { include_usage: true } });
  t.same(JSON.parse(chatCall({ ...msg(), stream: false }).body), { model: 'gpt-5-up', messages: [U('hi')], max_completion_tokens: 1000 });
});

t.test('Anthropic-only fields are dropped', async (t) => {
  const body = {
    ...msg(),
    cache_control: { type: 'ephemeral' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    service_tier: 'auto',
    speed: 'fast',
    diagnostics: { previous_message_id: null },
    safeguards: [{ type: 'dangerous_tool_use', classifier_context: { v: 1 } }],
    container: null,
    output_config: { task_budget: { type: 'tokens', total: 30000 } },
  };
  t.same(toChat(body), { model: 'gpt-5-up', messages: [U('hi')], max_completion_tokens: 1000 });
});
