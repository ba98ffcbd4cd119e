// Chat Completions request validation: one valid base, one mutation per case; every failure is
// checked for its code, HTTP status, OpenAI code and `param` path.
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { openAiError } from '../../../lib/openai/errors.js';
import { validateChatRequest } from '../../../lib/dialects/openai-chat/validate.js';
import { statusOf, type ErrorCode } from '../../../lib/errors.js';
import { audio, base, img, thrown, toolBase, tools } from './bodies.js';

const INVALID: ErrorCode = 'GW_ERR_REQUEST_INVALID';
const UNSUPPORTED: ErrorCode = 'GW_ERR_PARAM_UNSUPPORTED';
const CALL_NAME: ErrorCode = 'GW_ERR_CALL_NAME_INVALID';
const OPENAI_CODE: Partial<Record<ErrorCode, string>> = { [INVALID]: 'invalid_request', [UNSUPPORTED]: 'unsupported_parameter', [CALL_NAME]: 'invalid_call_name' };

interface Case {
  name: string;
  from?: () => JsonObject;
  mutate: (b: JsonObject) => void;
  code?: ErrorCode;
  param?: string;
}

const set = (key: string, value: JsonValue) => (b: JsonObject) => {
  b[key] = value;
};
const msg = (i: number, patch: JsonObject) => (b: JsonObject) => {
  Object.assign((b.messages as JsonObject[])[i]!, patch);
};
const user = (content: JsonValue) => set('messages', [{ role: 'user', content }]);
const cases: Case[] = [
  // model, stream, messages
  { name: 'model omitted', mutate: (b) => delete b.model },
  { name: 'model null', mutate: set('model', null) },
  { name: 'model empty', mutate: set('model', ''), code: INVALID, param: 'model' },
  { name: 'model number', mutate: set('model', 4), code: INVALID, param: 'model' },
  { name: 'stream not boolean', mutate: set('stream', 'yes'), code: INVALID, param: 'stream' },
  { name: 'messages missing', mutate: (b) => delete b.messages, code: INVALID, param: 'messages' },
  { name: 'messages empty', mutate: set('messages', []), code: INVALID, param: 'messages' },
  { name: 'messages not an array', mutate: set('messages', 'hi'), code: INVALID, param: 'messages' },
  { name: 'message not an object', mutate: set('messages', ['hi']), code: INVALID, param: 'messages[0]' },
  { name: 'unknown role', mutate: msg(0, { role: 'function' }), code: INVALID, param: 'messages[0].role' },
  { name: 'developer role', mutate: msg(0, { role: 'developer' }) },
  { name: 'unknown message field', mutate: msg(0, { foo: 1 }), code: INVALID, param: 'messages[0].foo' },
  { name: 'name on a user message', mutate: msg(0, { name: 'ann' }) },
  { name: 'user content missing', mutate: (b) => delete (b.messages as JsonObject[])[0]!.content, code: INVALID, param: 'messages[0].content' },
  { name: 'user content null', mutate: msg(0, { content: null }), code: INVALID, param: 'messages[0].content' },
  { name: 'content parts empty', mutate: user([]), code: INVALID, param: 'messages[0].content' },
  { name: 'unknown part type', mutate: user([{ type: 'file', file: {} }]), code: INVALID, param: 'messages[0].content[0].type' },
  { name: 'text part without text', mutate: user([{ type: 'text' }]), code: INVALID, param: 'messages[0].content[0].text' },
  { name: 'text part extra field', mutate: user([{ type: 'text', text: 'a', citations: [] }]), code: INVALID, param: 'messages[0].content[0].citations' },
  // cache_control, as OpenCode sends it through @ai-sdk/openai-compatible (client-fields.ts)
  { name: 'text part with cache_control', mutate: user([{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }]) },
  { name: 'message with cache_control', mutate: msg(0, { cache_control: { type: 'ephemeral', ttl: '1h' } }) },
  { name: 'cache_control of an unknown type', mutate: msg(0, { cache_control: { type: 'persistent' } }), code: INVALID, param: 'messages[0].cache_control.type' },
  { name: 'cache_control with an unknown field', mutate: user([{ type: 'text', text: 'a', cache_control: { type: 'ephemeral', x: 1 } }]), code: INVALID, param: 'messages[0].content[0].cache_control.x' },
  // images
  { name: 'image https', mutate: user([img('https://example.com/a.png', 'high')]) },
  { name: 'image data URL', mutate: user([img('data:image/png;base64,iVBORw0KGgo=')]) },
  { name: 'image http refused', mutate: user([img('http://example.com/a.png')]), code: INVALID, param: 'messages[0].content[0].image_url.url' },
  { name: 'image not a URL', mutate: user([img('https://')]), code: INVALID, param: 'messages[0].content[0].image_url.url' },
  { name: 'image data URL without base64', mutate: user([img('data:image/png,abc')]), code: INVALID, param: 'messages[0].content[0].image_url.url' },
  { name: 'image data URL of a pdf', mutate: user([img('data:application/pdf;base64,JVBERi0=')]), code: INVALID, param: 'messages[0].content[0].image_url.url' },
  { name: 'image data URL without data', mutate: user([img('data:image/png;base64,')]), code: INVALID, param: 'messages[0].content[0].image_url.url' },
  { name: 'image detail unknown', mutate: user([img('https://example.com/a.png', 'ultra')]), code: INVALID, param: 'messages[0].content[0].image_url.detail' },
  { name: 'image_url extra field', mutate: user([{ type: 'image_url', image_url: { url: 'https://example.com/a.png', x: 1 } }]), code: INVALID, param: 'messages[0].content[0].image_url.x' },
  { name: 'image in a system message', mutate: set('messages', [{ role: 'system', content: [img('https://example.com/a.png')] }]), code: INVALID, param: 'messages[0].content[0].type' },
  // audio
  { name: 'audio wav', mutate: user([audio('UklGRg==', 'wav')]) },
  { name: 'audio format unknown', mutate: user([audio('UklGRg==', 'aiff')]), code: INVALID, param: 'messages[0].content[0].input_audio.format' },
  { name: 'audio data empty', mutate: user([audio('', 'mp3')]), code: INVALID, param: 'messages[0].content[0].input_audio.data' },
  // assistant and tool messages
  { name: 'tool round trip', from: toolBase, mutate: () => undefined },
  { name: 'assistant content null without tool_calls', from: toolBase, mutate: msg(2, { tool_calls: [] }), code: INVALID, param: 'messages[2].content' },
  { name: 'assistant refusal only', mutate: set('messages', [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, refusal: 'no' }, { role: 'user', content: 'ok' }]) },
  { name: 'assistant refusal part', mutate: set('messages', [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] }, { role: 'user', content: 'ok' }]) },
  { name: 'assistant image part', mutate: set('messages', [{ role: 'assistant', content: [img('https://example.com/a.png')] }]), code: INVALID, param: 'messages[0].content[0].type' },
  { name: 'tool call id missing', from: toolBase, mutate: (b) => delete ((b.messages as JsonObject[])[2]!.tool_calls as JsonObject[])[0]!.id, code: INVALID, param: 'messages[2].tool_calls[0].id' },
  { name: 'tool call type custom', from: toolBase, mutate: (b) => (((b.messages as JsonObject[])[2]!.tool_calls as JsonObject[])[0]!.type = 'custom'), code: INVALID, param: 'messages[2].tool_calls[0].type' },
  { name: 'tool call arguments object', from: toolBase, mutate: (b) => ((((b.messages as JsonObject[])[2]!.tool_calls as JsonObject[])[0]!.function as JsonObject).arguments = {}), code: INVALID, param: 'messages[2].tool_calls[0].function.arguments' },
  { name: 'tool_call_id unknown', from: toolBase, mutate: msg(3, { tool_call_id: 'call_2' }), code: INVALID, param: 'messages[3].tool_call_id' },
  { name: 'tool_call_id missing', from: toolBase, mutate: (b) => delete (b.messages as JsonObject[])[3]!.tool_call_id, code: INVALID, param: 'messages[3].tool_call_id' },
  { name: 'tool result before its call', from: toolBase, mutate: (b) => (b.messages as JsonValue[]).splice(2, 0, { role: 'tool', tool_call_id: 'call_1', content: 'x' }), code: INVALID, param: 'messages[2].tool_call_id' },
  { name: 'tool message with parts', from: toolBase, mutate: msg(3, { content: [{ type: 'text', text: 'sunny' }] }) },
  { name: 'tool message with name (LangChain sends it)', from: toolBase, mutate: msg(3, { name: 'x' }) },
  { name: 'tool message with a non-string name', from: toolBase, mutate: msg(3, { name: 1 }), code: INVALID, param: 'messages[3].name' },
  { name: 'assistant reasoning null', from: toolBase, mutate: msg(2, { reasoning: null, reasoning_details: null }) },
  { name: 'assistant reasoning string', from: toolBase, mutate: msg(2, { reasoning: 'thought' }) },
  { name: 'assistant reasoning number', from: toolBase, mutate: msg(2, { reasoning: 1 }), code: INVALID, param: 'messages[2].reasoning' },
  { name: 'reasoning_details not an array', from: toolBase, mutate: msg(2, { reasoning_details: {} }), code: INVALID, param: 'messages[2].reasoning_details' },
  { name: 'reasoning_details foreign entry kept', from: toolBase, mutate: msg(2, { reasoning_details: [{ type: 'reasoning.summary', summary: 'x', format: 'openai-responses-v1', extra: [1] }] }) },
  { name: 'reasoning_details malformed anthropic entry', from: toolBase, mutate: msg(2, { reasoning_details: [{ type: 'reasoning.text', text: 'x', format: 'anthropic-claude-v1' }] }), code: INVALID, param: 'messages[2].reasoning_details[0]' },
  { name: 'reasoning on a user message', mutate: msg(0, { reasoning: 'x' }), code: INVALID, param: 'messages[0].reasoning' },
  // sampling
  { name: 'temperature 2', mutate: set('temperature', 2) },
  { name: 'temperature 2.1', mutate: set('temperature', 2.1), code: INVALID, param: 'temperature' },
  { name: 'temperature null', mutate: set('temperature', null) },
  { name: 'top_p 1.5', mutate: set('top_p', 1.5), code: INVALID, param: 'top_p' },
  { name: 'frequency_penalty -2', mutate: set('frequency_penalty', -2) },
  { name: 'presence_penalty 3', mutate: set('presence_penalty', 3), code: INVALID, param: 'presence_penalty' },
  { name: 'stop string', mutate: set('stop', 'END') },
  { name: 'stop 4', mutate: set('stop', ['a', 'b', 'c', 'd']) },
  { name: 'stop 5', mutate: set('stop', ['a', 'b', 'c', 'd', 'e']), code: INVALID, param: 'stop' },
  { name: 'stop entry number', mutate: set('stop', ['a', 1]), code: INVALID, param: 'stop[1]' },
  { name: 'max_completion_tokens 0', mutate: set('max_completion_tokens', 0), code: INVALID, param: 'max_completion_tokens' },
  { name: 'max_completion_tokens fraction', mutate: set('max_completion_tokens', 1.5), code: INVALID, param: 'max_completion_tokens' },
  { name: 'max_tokens 0', mutate: set('max_tokens', 0), code: INVALID, param: 'max_tokens' },
  { name: 'max_tokens string', mutate: set('max_tokens', '10'), code: INVALID, param: 'max_tokens' },
  // response_format
  { name: 'response_format text', mutate: set('response_format', { type: 'text' }) },
  { name: 'response_format json_object', mutate: set('response_format', { type: 'json_object' }) },
  { name: 'response_format json_schema', mutate: set('response_format', { type: 'json_schema', json_schema: { name: 'out', strict: true, schema: { type: 'object' } } }) },
  { name: 'json_schema without name', mutate: set('response_format', { type: 'json_schema', json_schema: { schema: { type: 'object' } } }), code: INVALID, param: 'response_format.json_schema.name' },
  { name: 'json_schema without schema', mutate: set('response_format', { type: 'json_schema', json_schema: { name: 'out' } }), code: INVALID, param: 'response_format.json_schema.schema' },
  { name: 'json_schema schema not an object', mutate: set('response_format', { type: 'json_schema', json_schema: { name: 'out', schema: true } }), code: INVALID, param: 'response_format.json_schema.schema' },
  { name: 'response_format unknown type', mutate: set('response_format', { type: 'xml' }), code: INVALID, param: 'response_format.type' },
  // tools
  { name: 'tools with strict', mutate: set('tools', tools()) },
  { name: 'tool without parameters', mutate: set('tools', [{ type: 'function', function: { name: 'now' } }]) },
  { name: 'tool type custom', mutate: set('tools', [{ type: 'custom', custom: { name: 'x' } }]), code: INVALID, param: 'tools[0].type' },
  { name: 'tool name with a dot', mutate: set('tools', [{ type: 'function', function: { name: 'a.b' } }]), code: INVALID, param: 'tools[0].function.name' },
  { name: 'tool names repeated', mutate: set('tools', [...tools(), ...tools()]), code: INVALID, param: 'tools[1].function.name' },
  { name: 'tool parameters not an object', mutate: set('tools', [{ type: 'function', function: { name: 'a', parameters: [] } }]), code: INVALID, param: 'tools[0].function.parameters' },
  { name: 'tool unknown field', mutate: set('tools', [{ type: 'function', function: { name: 'a', examples: [] } }]), code: INVALID, param: 'tools[0].function.examples' },
  { name: 'tool_choice auto', from: toolBase, mutate: set('tool_choice', 'auto') },
  { name: 'tool_choice required', from: toolBase, mutate: set('tool_choice', 'required') },
  { name: 'tool_choice required without tools', mutate: set('tool_choice', 'required'), code: INVALID, param: 'tool_choice' },
  { name: 'tool_choice none without tools', mutate: set('tool_choice', 'none') },
  { name: 'tool_choice any', from: toolBase, mutate: set('tool_choice', 'any'), code: INVALID, param: 'tool_choice' },
  { name: 'tool_choice named', from: toolBase, mutate: set('tool_choice', { type: 'function', function: { name: 'get_weather' } }) },
  { name: 'tool_choice names an unknown tool', from: toolBase, mutate: set('tool_choice', { type: 'function', function: { name: 'nope' } }), code: INVALID, param: 'tool_choice.function.name' },
  { name: 'parallel_tool_calls false', from: toolBase, mutate: set('parallel_tool_calls', false) },
  { name: 'parallel_tool_calls string', from: toolBase, mutate: set('parallel_tool_calls', 'no'), code: INVALID, param: 'parallel_tool_calls' },
  // reasoning
  { name: 'reasoning effort xhigh', mutate: set('reasoning', { effort: 'xhigh' }) },
  { name: 'reasoning effort max', mutate: set('reasoning', { effort: 'max' }), code: INVALID, param: 'reasoning.effort' },
  { name: 'reasoning max_tokens', mutate: set('reasoning', { max_tokens: 2000, exclude: true }) },
  { name: 'reasoning max_tokens 0', mutate: set('reasoning', { max_tokens: 0 }), code: INVALID, param: 'reasoning.max_tokens' },
  { name: 'reasoning budget not below the ceiling', mutate: (b) => Object.assign(b, { max_completion_tokens: 1000, reasoning: { max_tokens: 1000 } }), code: INVALID, param: 'reasoning.max_tokens' },
  { name: 'reasoning budget with effort none', mutate: set('reasoning', { effort: 'none', max_tokens: 10 }), code: INVALID, param: 'reasoning.max_tokens' },
  { name: 'reasoning exclude string', mutate: set('reasoning', { exclude: 'yes' }), code: INVALID, param: 'reasoning.exclude' },
  { name: 'reasoning unknown field', mutate: set('reasoning', { enabled: true }), code: INVALID, param: 'reasoning.enabled' },
  { name: 'reasoning_effort minimal', mutate: set('reasoning_effort', 'minimal') },
  { name: 'reasoning_effort unknown', mutate: set('reasoning_effort', 'huge'), code: INVALID, param: 'reasoning_effort' },
  // metadata and call_name
  { name: 'metadata', mutate: set('metadata', { call_name: 'summarise', team: 'search' }) },
  { name: 'metadata 17 pairs', mutate: set('metadata', Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']))), code: INVALID, param: 'metadata' },
  { name: 'metadata key 65 chars', mutate: set('metadata', { ['k'.repeat(65)]: 'v' }), code: INVALID, param: 'metadata' },
  { name: 'metadata value 513 chars', mutate: set('metadata', { k: 'v'.repeat(513) }), code: INVALID, param: 'metadata.k' },
  { name: 'metadata value number', mutate: set('metadata', { k: 1 }), code: INVALID, param: 'metadata.k' },
  { name: 'call_name empty', mutate: set('metadata', { call_name: '' }), code: CALL_NAME, param: 'metadata.call_name' },
  { name: 'call_name whitespace', mutate: set('metadata', { call_name: ' \t ' }), code: CALL_NAME, param: 'metadata.call_name' },
  { name: 'call_name 65 chars', mutate: set('metadata', { call_name: 'c'.repeat(65) }), code: CALL_NAME, param: 'metadata.call_name' },
  { name: 'call_name number', mutate: set('metadata', { call_name: 7 }), code: CALL_NAME, param: 'metadata.call_name' },
  { name: 'call_name 64 chars', mutate: set('metadata', { call_name: 'c'.repeat(64) }) },
  // rejected parameters
  { name: 'n 1', mutate: set('n', 1) },
  { name: 'n 2', mutate: set('n', 2), code: UNSUPPORTED, param: 'n' },
  { name: 'n 0', mutate: set('n', 0), code: INVALID, param: 'n' },
  { name: 'audio', mutate: set('audio', { voice: 'alloy', format: 'wav' }), code: UNSUPPORTED, param: 'audio' },
  { name: 'modalities text', mutate: set('modalities', ['text']) },
  { name: 'modalities audio', mutate: set('modalities', ['text', 'audio']), code: UNSUPPORTED, param: 'modalities' },
  { name: 'web_search_options', mutate: set('web_search_options', {}), code: UNSUPPORTED, param: 'web_search_options' },
  { name: 'functions', mutate: set('functions', [{ name: 'f' }]), code: UNSUPPORTED, param: 'functions' },
  { name: 'function_call', mutate: set('function_call', 'auto'), code: UNSUPPORTED, param: 'function_call' },
  // accepted and ignored
  {
    name: 'every ignored parameter',
    mutate: (b) => Object.assign(b, {
      logit_bias: { '50256': -100 }, logprobs: true, top_logprobs: 3, seed: 7, stream_options: { include_usage: true }, prediction: { type: 'content', content: 'x' },
      store: false, service_tier: 'auto', prompt_cache_key: 'k', prompt_cache_retention: '24h', safety_identifier: 'u1', user: 'u2', verbosity: 'low',
    }),
  },
  { name: 'top_logprobs 21', mutate: set('top_logprobs', 21), code: INVALID, param: 'top_logprobs' },
  { name: 'user number', mutate: set('user', 5), code: INVALID, param: 'user' },
  { name: 'verbosity unknown', mutate: set('verbosity', 'loud'), code: INVALID, param: 'verbosity' },
  // unknown parameters
  { name: 'unknown top-level parameter', mutate: set('call_name', 'x'), code: INVALID, param: 'call_name' },
  { name: 'unknown top-level parameter (typo)', mutate: set('max_token', 5), code: INVALID, param: 'max_token' },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const body = (c.from ?? base)();
    t.doesNotThrow(() => validateChatRequest((c.from ?? base)()), 'base is valid');
    c.mutate(body);
    if (c.code === undefined) {
      t.doesNotThrow(() => validateChatRequest(body), 'mutated request is valid');
      return;
    }
    const err = thrown(() => validateChatRequest(body));
    t.equal(err.code, c.code, 'code');
    t.equal(err.status, statusOf(c.code), 'status');
    t.equal(err.param, c.param, 'param');
    t.ok(err.message.startsWith(`${c.param}: `), `message names the path: ${err.message}`);
    const wire = openAiError(err);
    t.equal(wire.code, OPENAI_CODE[c.code], 'OpenAI-style code');
    t.equal(wire.param, c.param, 'OpenAI-style param');
  });
}
