// Chat Completions → Responses: one minimal request per mapping rule, with the exact upstream JSON.
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { validateChatRequest } from '../../../lib/dialects/openai-chat/validate.js';
import { encodeReasoningSignature } from '../../../lib/translate/reasoning-state.js';
import { chatToResponses } from '../../../lib/translate/chat-to-responses.js';
import { redactedDetail, thinkingDetail } from '../../../lib/translate/reasoning-details.js';
import type { UpstreamCall } from '../../../lib/dialects/index.js';
import { chat, routedFor, thrown, type RouteOptions } from '../translate/harness.js';
import { RESPONSES_DEPLOYMENT } from './harness.js';

function call(body: JsonObject, opts: RouteOptions = {}): UpstreamCall {
  const validated = validateChatRequest(body, { defaultEffortOnAuto: opts.routed === true });
  const routed = routedFor('openai-chat', body, { modelId: 'openai/gpt-5', ...opts });
  // what the validator found travels with the request
  if (validated.findings !== undefined) routed.request.findings = validated.findings;
  return chatToResponses(routed, RESPONSES_DEPLOYMENT);
}
const toResponses = (body: JsonObject, opts: RouteOptions = {}): JsonObject => JSON.parse(call(body, opts).body) as JsonObject;
const TOOL = { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } } };

t.test('minimal request: exact body', async (t) => {
  const c = call(chat());
  t.equal(c.body, '{"model":"gpt-5-up","input":[{"type":"message","role":"user","content":"hi"}],"store":false}');
  t.same(c.headers, {});
  t.equal(toResponses(chat({ max_completion_tokens: 300, stream: true })).max_output_tokens, 300);
  t.equal(toResponses(chat({ stream: true })).stream, true);
});

t.test('system and developer messages: leading → instructions, later → items with their role', async (t) => {
  const out = toResponses(chat({
    messages: [
      { role: 'system', content: 'A' },
      { role: 'developer', content: [{ type: 'text', text: 'B' }] },
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'https://example.com/x.png', detail: 'low' } }] },
      { role: 'developer', content: 'later' },
    ],
  }));
  t.equal(out.instructions, 'A\n\nB');
  t.same(out.input, [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_image', image_url: 'https://example.com/x.png', detail: 'low' }] },
    { type: 'message', role: 'developer', content: 'later' },
  ]);
  const err = thrown(() => call(chat({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] }] })));
  t.same([err.code, err.param], ['GW_ERR_CAPABILITY_REJECTED', 'messages[0].content[0]']);
});

t.test('assistant turns: Responses reasoning first (byte-identical), text and refusal, tool calls, tool results', async (t) => {
  const sig = encodeReasoningSignature('rs_9', 'gAAAA+/=', [5, 3]);
  const out = toResponses(chat({
    tools: [TOOL],
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: 'Checking.',
        reasoning: 'Think\n\nabc',
        reasoning_details: JSON.parse(JSON.stringify([thinkingDetail('Think\n\nabc', sig, 0), thinkingDetail('claude', 'EqQB', 1), redactedDetail('xyz', 2)])) as JsonObject[],
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '18' }, { type: 'text', text: 'C' }] },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
      { role: 'user', content: 'ok' },
    ],
  }));
  t.same(out.input, [
    { type: 'message', role: 'user', content: 'Weather?' },
    { id: 'rs_9', type: 'reasoning', encrypted_content: 'gAAAA+/=', summary: [{ type: 'summary_text', text: 'Think' }, { type: 'summary_text', text: 'abc' }] },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
    { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city": "Paris"}' },
    { type: 'function_call_output', call_id: 'call_1', output: '18\nC' },
    { type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
    { type: 'message', role: 'user', content: 'ok' },
  ]);
});

t.test('tools, tool_choice, parallel_tool_calls', async (t) => {
  const out = toResponses(chat({
    tools: [TOOL, { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {}, required: [], additionalProperties: false }, strict: true } }],
    tool_choice: { type: 'function', function: { name: 'f' } },
    parallel_tool_calls: false,
  }));
  t.same(out.tools, [
    { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: false },
    { type: 'function', name: 'f', parameters: { type: 'object', properties: {}, required: [], additionalProperties: false }, strict: true },
  ]);
  t.same(out.tool_choice, { type: 'function', name: 'f' });
  t.equal(out.parallel_tool_calls, false);
  t.equal(toResponses(chat({ tools: [TOOL], tool_choice: 'required' })).tool_choice, 'required');
  t.equal(toResponses(chat({ tool_choice: 'none' })).tool_choice, undefined, 'no tools: no tool_choice');
});

t.test('reasoning: effort, budget, exclude, none, gateway-auto default; sampling only without reasoning', async (t) => {
  const reasoning = (body: JsonObject, opts: RouteOptions = {}): JsonValue[] => {
    const out = toResponses(chat(body), opts);
    return [out.reasoning ?? null, out.include ?? null];
  };
  const include = ['reasoning.encrypted_content'];
  t.same(reasoning({ reasoning_effort: 'minimal' }), [{ effort: 'minimal', summary: 'auto' }, include]);
  t.same(reasoning({ reasoning: { effort: 'xhigh' } }), [{ effort: 'xhigh', summary: 'auto' }, include]);
  t.same(reasoning({ reasoning: { max_tokens: 20000 } }), [{ effort: 'high', summary: 'auto' }, include]);
  t.same(reasoning({ reasoning: { max_tokens: 2000 } }), [{ effort: 'medium', summary: 'auto' }, include]);
  t.same(reasoning({ reasoning: { effort: 'low', exclude: true } }), [{ effort: 'low' }, include]);
  t.same(reasoning({ reasoning: {} }), [{ summary: 'auto' }, include], 'the model\'s default effort');
  t.same(reasoning({ reasoning_effort: 'none' }), [{ effort: 'none' }, null]);
  t.same(reasoning({}), [null, null]);
  t.same(reasoning({ model: 'gateway-auto' }, { routed: true }), [{ effort: 'high', summary: 'auto' }, include], 'gateway-auto default effort');
  const sampled = toResponses(chat({ temperature: 0.3, top_p: 0.5 }));
  t.same([sampled.temperature, sampled.top_p], [0.3, 0.5]);
  const reasoned = toResponses(chat({ temperature: 0.3, reasoning_effort: 'low' }));
  t.equal(reasoned.temperature, undefined);
});

t.test('response_format, verbosity, passed identifiers, stop', async (t) => {
  const out = toResponses(chat({
    response_format: { type: 'json_schema', json_schema: { name: 'answer', description: 'd', schema: { type: 'object' }, strict: true } },
    verbosity: 'low',
    user: 'u1',
    safety_identifier: 's1',
    prompt_cache_key: 'k1',
    metadata: { call_name: 'x' },
    seed: 3,
    frequency_penalty: 1,
  }));
  t.same(out.text, { format: { type: 'json_schema', name: 'answer', description: 'd', schema: { type: 'object' }, strict: true }, verbosity: 'low' });
  t.same([out.user, out.safety_identifier, out.prompt_cache_key, out.metadata, out.seed, out.frequency_penalty], ['u1', 's1', 'k1', undefined, undefined, undefined]);
  t.same(toResponses(chat({ response_format: { type: 'json_object' } })).text, { format: { type: 'json_object' } });
  t.equal(toResponses(chat({ response_format: { type: 'text' } })).text, undefined);
  const err = thrown(() => call(chat({ stop: 'END' })));
  t.same([err.code, err.param], ['GW_ERR_CAPABILITY_REJECTED', 'stop']);
});
