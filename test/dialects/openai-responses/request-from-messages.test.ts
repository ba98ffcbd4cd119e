// Messages → Responses: one minimal request per mapping rule, with the exact upstream JSON.
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { encodeReasoningSignature } from '../../../lib/translate/reasoning-state.js';
import { anthropicToResponses } from '../../../lib/translate/messages-to-responses.js';
import type { UpstreamCall } from '../../../lib/dialects/index.js';
import { msg, routedFor, thrown, validMessages, type RouteOptions } from '../translate/harness.js';
import { RESPONSES_DEPLOYMENT } from './harness.js';

const U = (content: JsonValue): JsonObject => ({ role: 'user', content });
const A = (content: JsonValue): JsonObject => ({ role: 'assistant', content });
const PNG = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };
const WEATHER = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

function call(body: JsonObject, opts: RouteOptions = {}): UpstreamCall {
  validMessages(body);
  return anthropicToResponses(routedFor('anthropic', body, opts), RESPONSES_DEPLOYMENT);
}
const toResponses = (body: JsonObject, opts: RouteOptions = {}): JsonObject => JSON.parse(call(body, opts).body) as JsonObject;

t.test('minimal request: exact body, no headers', async (t) => {
  const c = call(msg());
  t.equal(c.body, '{"model":"gpt-5-up","input":[{"type":"message","role":"user","content":"hi"}],"max_output_tokens":1000,"store":false}');
  t.same(c.headers, {}, 'betas and anthropic-* headers are not forwarded');
  t.equal(c.stream, false);
  const streamed = call({ ...msg(), stream: true });
  t.equal(streamed.stream, true);
  t.equal((JSON.parse(streamed.body) as JsonObject).stream, true);
  t.equal(toResponses({ ...msg(), max_tokens: 5 }).max_output_tokens, 16, 'raised to OpenAI\'s minimum');
  t.equal(toResponses(msg(), { maxTokens: 900 }).max_output_tokens, 900, 'the capped value');
});

t.test('system → instructions; inline system turns → system message items', async (t) => {
  t.equal(toResponses({ ...msg(), system: 'Be brief.' }).instructions, 'Be brief.');
  t.equal(toResponses({ ...msg(), system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }] }).instructions, 'A\n\nB');
  const out = toResponses({
    ...msg(),
    messages: [U('hi'), { role: 'system', content: [{ type: 'text', text: 'env' }], output_config: { effort: 'low' } }, A('hello'), { role: 'system', content: 'later' }, U('bye')],
  });
  t.same(out.input, [
    { type: 'message', role: 'user', content: 'hi' },
    { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'env' }] },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] },
    { type: 'message', role: 'system', content: 'later' },
    { type: 'message', role: 'user', content: 'bye' },
  ]);
  t.equal(out.instructions, undefined);
  t.equal(out.reasoning, undefined, 'a per-turn effort sets no request effort');
});

t.test('user content: text and images (data URI and URL)', async (t) => {
  const out = toResponses({ ...msg(), messages: [U([{ type: 'text', text: 'look' }, { type: 'image', source: PNG }, { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } }])] });
  t.same(out.input, [{
    type: 'message', role: 'user', content: [
      { type: 'input_text', text: 'look' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
      { type: 'input_image', image_url: 'https://example.com/cat.jpg', detail: 'auto' },
    ],
  }]);
});

t.test('tool round trip: function_call, function_call_output (error prefix, images moved), tools and tool_choice', async (t) => {
  const out = toResponses({
    ...msg(),
    tools: [WEATHER],
    tool_choice: { type: 'any', disable_parallel_tool_use: true },
    messages: [
      U('Weather?'),
      A([{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }, { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: {} }]),
      U([
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' },
        { type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: [{ type: 'text', text: 'no' }, { type: 'text', text: 'city' }, { type: 'image', source: PNG }] },
        { type: 'text', text: 'Thanks' },
      ]),
    ],
  });
  t.same(out.input, [
    { type: 'message', role: 'user', content: 'Weather?' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
    { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'function_call', call_id: 'toolu_2', name: 'get_weather', arguments: '{}' },
    { type: 'function_call_output', call_id: 'toolu_1', output: '18°C' },
    { type: 'function_call_output', call_id: 'toolu_2', output: 'Error: no\ncity' },
    { type: 'message', role: 'user', content: [
      { type: 'input_text', text: 'Images returned by tool call toolu_2:' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
      { type: 'input_text', text: 'Thanks' },
    ] },
  ]);
  t.same(out.tools, [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: WEATHER.input_schema, strict: false }]);
  t.equal(out.tool_choice, 'required');
  t.equal(out.parallel_tool_calls, false);
  t.same(toResponses({ ...msg(), tools: [WEATHER], tool_choice: { type: 'tool', name: 'get_weather' } }).tool_choice, { type: 'function', name: 'get_weather' });
  t.equal(toResponses({ ...msg(), tools: [WEATHER], tool_choice: { type: 'none' } }).tool_choice, 'none');
  const none = toResponses({ ...msg(), tool_choice: { type: 'auto' } });
  t.same([none.tools, none.tool_choice], [undefined, undefined], 'no tools: no tool_choice');
  const err = thrown(() => call({ ...msg(), tools: [{ type: 'web_fetch_20250910', name: 'web_fetch' }] }));
  t.same([err.code, err.param], ['GW_ERR_CAPABILITY_REJECTED', 'tools[0]']);
});

t.test('thinking: Responses state → the reasoning item in place; Anthropic signatures and redacted thinking dropped', async (t) => {
  const sig = encodeReasoningSignature('rs_1', 'gAAAA+enc/=', [4]);
  const out = toResponses({
    ...msg(),
    thinking: { type: 'adaptive' },
    messages: [
      U('q'),
      A([
        { type: 'thinking', thinking: 'Plan', signature: sig },
        { type: 'thinking', thinking: 'claude', signature: 'EqQBCkgIARAB' },
        { type: 'redacted_thinking', data: 'xyz' },
        { type: 'text', text: 'a' },
      ]),
      U('again'),
    ],
  });
  t.same(out.input, [
    { type: 'message', role: 'user', content: 'q' },
    { id: 'rs_1', type: 'reasoning', encrypted_content: 'gAAAA+enc/=', summary: [{ type: 'summary_text', text: 'Plan' }] },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
    { type: 'message', role: 'user', content: 'again' },
  ]);
});

t.test('effort and thinking → reasoning (+ include), sampling only without reasoning', async (t) => {
  const reasoning = (body: JsonObject, opts: RouteOptions = {}): JsonValue[] => {
    const out = toResponses({ ...msg(), ...body }, opts);
    return [out.reasoning ?? null, out.include ?? null];
  };
  const include = ['reasoning.encrypted_content'];
  t.same(reasoning({ thinking: { type: 'adaptive' } }), [{ effort: 'high', summary: 'auto' }, include]);
  t.same(reasoning({ max_tokens: 30000, thinking: { type: 'enabled', budget_tokens: 20000 } }), [{ effort: 'high', summary: 'auto' }, include]);
  t.same(reasoning({ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 } }), [{ effort: 'medium', summary: 'auto' }, include]);
  t.same(reasoning({ max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 } }, { thinkingBudget: 16000 }), [{ effort: 'high', summary: 'auto' }, include], 'reconciled budget first');
  t.same(reasoning({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }), [{ effort: 'low', summary: 'auto' }, include]);
  t.same(reasoning({ output_config: { effort: 'max' } }), [{ effort: 'high', summary: 'auto' }, include], 'effort without thinking; max → high');
  t.same(reasoning({ thinking: { type: 'adaptive', display: 'omitted' } }), [{ effort: 'high' }, include], 'no summary when omitted');
  t.same(reasoning({ thinking: { type: 'disabled' } }), [null, null]);
  t.same(reasoning({}), [null, null]);
  const sampled = toResponses({ ...msg(), temperature: 0.2, top_p: 0.9 });
  t.same([sampled.temperature, sampled.top_p], [0.2, 0.9]);
  const thinking = toResponses({ ...msg(), temperature: 1, thinking: { type: 'adaptive' } });
  t.equal(thinking.temperature, undefined, 'reasoning models take only their default sampling');
});

t.test('output format, user id, stop sequences', async (t) => {
  const out = toResponses({
    ...msg(),
    output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: {} } } },
    metadata: { user_id: 'u-1' },
  });
  t.same(out.text, { format: { type: 'json_schema', name: 'response', schema: { type: 'object', properties: {} } } });
  t.equal(out.user, 'u-1');
  const err = thrown(() => call({ ...msg(), stop_sequences: ['END'] }));
  t.same([err.code, err.param], ['GW_ERR_CAPABILITY_REJECTED', 'stop_sequences']);
  t.match(err.message, /openai\/gpt-5 is reached through the Responses API, which has no stop sequences/);
});
