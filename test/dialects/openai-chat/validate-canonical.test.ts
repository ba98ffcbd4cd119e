// The canonical request a valid Chat Completions body becomes: needs, labels, bounds, reasoning
// normalisation with the gateway-auto default, and bodies real clients sent.
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { chatReasoning, validateChatRequest } from '../../../lib/dialects/openai-chat/validate.js';
import { audio, base, img, thrown, toolBase } from './bodies.js';

const INVALID = 'GW_ERR_REQUEST_INVALID';

t.test('body must be an object', async (t) => {
  t.equal(thrown(() => validateChatRequest([])).code, INVALID);
  t.equal(thrown(() => validateChatRequest(null)).code, INVALID);
});

t.test('canonical request', async (t) => {
  const body: JsonObject = {
    ...toolBase(),
    stream: true,
    max_tokens: 100,
    max_completion_tokens: 900,
    metadata: { call_name: 'nightly', other: 'x' },
    safety_identifier: 'end-user-7',
  };
  (body.messages as JsonValue[]).push({ role: 'user', content: [{ type: 'text', text: 'look' }, img('https://example.com/a.png'), audio('A'.repeat(4000), 'mp3')] });
  const req = validateChatRequest(body);
  t.equal(req.source, 'openai-chat');
  t.equal(req.body, body, 'body is the input object, not a copy');
  t.equal(req.model, 'gpt-5');
  t.equal(req.stream, true);
  t.equal(req.maxTokens, 900, 'max_completion_tokens wins over max_tokens');
  t.equal(req.thinkingBudget, null);
  t.same([...req.needs.modalities].sort(), ['audio', 'image', 'text']);
  t.equal(req.needs.tools, true);
  t.equal(req.needs.reasoning, false);
  t.equal(req.needs.signedThinking, false);
  t.same(req.labels, { callName: 'nightly', endUserId: 'end-user-7' });
  t.same(req.forward, { betas: [], headers: {} });
  t.equal(req.hostedToolUses, 0);
  const textBytes = Buffer.byteLength(JSON.stringify(body.messages), 'utf8');
  t.ok(req.inputTokenBound >= 1600 + 5 * 16 + 30, `bound counts images, audio and messages: ${req.inputTokenBound}`);
  t.ok(req.inputTokenBound < textBytes, 'audio data is not counted as text');

  const legacy = validateChatRequest({ ...base(), max_tokens: 77, user: 'u-1', safety_identifier: 's-1' });
  t.equal(legacy.maxTokens, 77, 'max_tokens is the fallback');
  t.equal(legacy.labels.endUserId, 'u-1', 'user wins over safety_identifier');
  t.same(validateChatRequest({ ...base(), user: '  ' }).labels, {}, 'a blank user is no label');
  t.equal(validateChatRequest({ ...base(), model: null }).model, null);
});

t.test('inputTokenBound over-estimates text', async (t) => {
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(200);
  const req = validateChatRequest({ messages: [{ role: 'user', content: text }] });
  t.ok(req.inputTokenBound >= Math.ceil(Buffer.byteLength(text) / 2), 'at least one token per two bytes');
});

t.test('reasoning normalisation and the gateway-auto default', async (t) => {
  const r = (body: JsonObject, opts = {}) => {
    const req = validateChatRequest(body, opts);
    return { needs: req.needs.reasoning, budget: req.thinkingBudget, reasoning: chatReasoning(req) };
  };
  t.same(r({ ...base(), reasoning_effort: 'low' }), { needs: true, budget: null, reasoning: { effort: 'low', exclude: false } });
  t.same(r({ ...base(), reasoning_effort: 'low', reasoning: { effort: 'high', exclude: true } }), { needs: true, budget: null, reasoning: { effort: 'high', exclude: true } }, 'reasoning wins');
  t.same(r({ ...base(), reasoning: { max_tokens: 4000 } }), { needs: true, budget: 4000, reasoning: { maxTokens: 4000, exclude: false } });
  t.same(r({ ...base(), reasoning_effort: 'none' }), { needs: false, budget: null, reasoning: { effort: 'none', exclude: false } });
  t.same(r(base()), { needs: false, budget: null, reasoning: { exclude: false } }, 'no reasoning without the option');
  t.same(r(base(), { defaultEffortOnAuto: true }), { needs: false, budget: null, reasoning: { exclude: false } }, 'a named model gets no default');
  t.same(r({ ...base(), model: 'gateway-auto' }, { defaultEffortOnAuto: true }), { needs: true, budget: null, reasoning: { effort: 'high', exclude: false, defaulted: true } });
  t.same(r({ messages: [{ role: 'user', content: 'x' }] }, { defaultEffortOnAuto: true }).reasoning.effort, 'high', 'omitted model');
  t.same(r({ ...base(), model: null, reasoning: { exclude: true } }, { defaultEffortOnAuto: true }).reasoning, { effort: 'high', exclude: true, defaulted: true });
  t.same(r({ ...base(), model: 'gateway-auto', reasoning_effort: 'none' }, { defaultEffortOnAuto: true }), { needs: false, budget: null, reasoning: { effort: 'none', exclude: false } }, 'an explicit none stays');
});

t.test('replayed Anthropic reasoning is model-bound', async (t) => {
  const body = toolBase();
  Object.assign((body.messages as JsonObject[])[2]!, {
    reasoning: 'hmm',
    reasoning_details: [{ type: 'reasoning.text', text: 'hmm', signature: 'sig', format: 'anthropic-claude-v1', index: 0 }],
  });
  t.equal(validateChatRequest(body).needs.signedThinking, true);
});

// Bodies captured from the openai SDK 7.57 and the Vercel AI SDK 7 (shared/clients/REPORT.md §4, §5).
const WEATHER = { type: 'function', function: { name: 'get_weather', description: 'Get weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'], additionalProperties: false } } };
const ASK = { role: 'user', content: 'What is the weather in Paris? Use the tool.' };
const CALL = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }] };
const CLIENT_BODIES: JsonObject[] = [
  { model: 'gpt-5', messages: [ASK], tools: [WEATHER] },
  { model: 'gpt-5', messages: [ASK], tools: [WEATHER], stream: true, stream_options: { include_usage: true } },
  { model: 'gpt-5', messages: [ASK, CALL, { role: 'tool', tool_call_id: 'call_1', content: 'sunny' }], tools: [WEATHER] },
  { model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }], stream: true },
  { model: 'gpt-5', messages: [ASK], tools: [WEATHER], tool_choice: 'auto' },
  { model: 'gpt-5', messages: [ASK, CALL, { role: 'tool', tool_call_id: 'call_1', content: 'sunny in Paris' }], tools: [WEATHER], tool_choice: 'auto', stream: true, stream_options: { include_usage: true } },
];

t.test('requests real clients sent', async (t) => {
  for (const body of CLIENT_BODIES) t.doesNotThrow(() => validateChatRequest(structuredClone(body)));
});
