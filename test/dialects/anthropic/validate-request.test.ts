// Top-level fields of a Messages request: one valid base, one mutation per case.
import t from 'tap';
import type { JsonObject, JsonValue } from '../../../lib/chunks.js';
import { INVALID, REJECTED, assertError, base, runCases, thrown, validate, type Case } from './validate-harness.js';

const set = (key: string, value: JsonValue) => (b: JsonObject) => {
  b[key] = value;
};
const del = (key: string) => (b: JsonObject) => {
  delete b[key];
};
const FAST = 'fast-mode-2026-02-01';
const DIAG = 'cache-diagnosis-2026-04-07';
const SAFE = 'dangerous-tool-use-2026-09-03';

const cases: Case[] = [
  // model
  { name: 'model missing', mutate: del('model'), code: INVALID, path: 'model', contains: 'gateway-auto' },
  { name: 'model null', mutate: set('model', null), code: INVALID, path: 'model', contains: 'not auto-routing' },
  { name: 'model empty', mutate: set('model', ''), code: INVALID, path: 'model' },
  { name: 'model number', mutate: set('model', 5), code: INVALID, path: 'model' },
  { name: 'model gateway-auto', mutate: set('model', 'gateway-auto') },
  // max_tokens
  { name: 'max_tokens missing', mutate: del('max_tokens'), code: INVALID, path: 'max_tokens' },
  { name: 'max_tokens missing on count_tokens', mutate: del('max_tokens'), opts: { countTokens: true } },
  { name: 'max_tokens 0 (prewarm)', mutate: set('max_tokens', 0), code: REJECTED, path: 'max_tokens', contains: 'Change it' },
  { name: 'max_tokens negative', mutate: set('max_tokens', -1), code: INVALID, path: 'max_tokens' },
  { name: 'max_tokens string not coerced', mutate: set('max_tokens', '5'), code: INVALID, path: 'max_tokens' },
  { name: 'max_tokens fraction', mutate: set('max_tokens', 1.5), code: INVALID, path: 'max_tokens' },
  { name: 'max_tokens huge unsafe', mutate: set('max_tokens', 1e300), code: INVALID, path: 'max_tokens' },
  { name: 'max_tokens 1', mutate: set('max_tokens', 1) },
  // messages
  { name: 'messages missing', mutate: del('messages'), code: INVALID, path: 'messages' },
  { name: 'messages not an array', mutate: set('messages', 'hi'), code: INVALID, path: 'messages' },
  { name: 'messages empty', mutate: set('messages', []), code: INVALID, path: 'messages' },
  {
    name: 'messages over 100000',
    mutate: set('messages', Array.from({ length: 100_001 }, () => ({ role: 'user', content: 'x' }))),
    code: INVALID,
    path: 'messages',
    contains: '100000',
  },
  { name: 'messages exactly 100000', mutate: set('messages', Array.from({ length: 100_000 }, () => ({ role: 'user', content: 'x' }))) },
  // scalars
  { name: 'unknown top-level field', mutate: set('foo', 1), code: INVALID, path: 'foo', contains: 'unknown field' },
  { name: 'stream string', mutate: set('stream', 'true'), code: INVALID, path: 'stream' },
  { name: 'stream true', mutate: set('stream', true) },
  { name: 'temperature above 1', mutate: set('temperature', 1.5), code: INVALID, path: 'temperature' },
  { name: 'temperature negative', mutate: set('temperature', -0.1), code: INVALID, path: 'temperature' },
  { name: 'temperature string', mutate: set('temperature', '0.5'), code: INVALID, path: 'temperature' },
  { name: 'temperature 0 and 1', mutate: (b) => Object.assign(b, { temperature: 0, top_p: 1 }) },
  { name: 'top_p above 1', mutate: set('top_p', 2), code: INVALID, path: 'top_p' },
  { name: 'top_k negative', mutate: set('top_k', -1), code: INVALID, path: 'top_k' },
  { name: 'top_k fraction', mutate: set('top_k', 1.5), code: INVALID, path: 'top_k' },
  { name: 'top_k 0', mutate: set('top_k', 0) },
  { name: 'stop_sequences five', mutate: set('stop_sequences', ['a', 'b', 'c', 'd', 'e']), code: INVALID, path: 'stop_sequences' },
  { name: 'stop_sequences string', mutate: set('stop_sequences', 'a'), code: INVALID, path: 'stop_sequences' },
  { name: 'stop_sequences number item', mutate: set('stop_sequences', ['a', 1]), code: INVALID, path: 'stop_sequences[1]' },
  { name: 'stop_sequences empty item', mutate: set('stop_sequences', ['']), code: INVALID, path: 'stop_sequences[0]' },
  { name: 'stop_sequences four', mutate: set('stop_sequences', ['a', 'b', 'c', 'd']) },
  { name: 'service_tier unknown', mutate: set('service_tier', 'priority'), code: INVALID, path: 'service_tier' },
  { name: 'service_tier standard_only', mutate: set('service_tier', 'standard_only') },
  { name: 'service_tier auto', mutate: set('service_tier', 'auto') },
  // metadata
  { name: 'metadata not an object', mutate: set('metadata', 'x'), code: INVALID, path: 'metadata' },
  { name: 'metadata unknown key', mutate: set('metadata', { call_name: 'x' }), code: INVALID, path: 'metadata.call_name' },
  { name: 'metadata user_id number', mutate: set('metadata', { user_id: 5 }), code: INVALID, path: 'metadata.user_id' },
  { name: 'metadata user_id null', mutate: set('metadata', { user_id: null }) },
  { name: 'metadata user_id JSON string', mutate: set('metadata', { user_id: '{"device_id":"x","session_id":"y"}' }) },
  { name: 'metadata empty', mutate: set('metadata', {}) },
  // speed
  { name: 'speed unknown', mutate: set('speed', 'slow'), code: INVALID, path: 'speed' },
  { name: 'speed standard', mutate: set('speed', 'standard') },
  { name: 'speed fast without beta', mutate: set('speed', 'fast'), code: REJECTED, path: 'speed', contains: `Unexpected value(s) \`${FAST}\` for the \`anthropic-beta\` header` },
  { name: 'speed fast with beta', mutate: set('speed', 'fast'), betas: [FAST] },
  // cache_control
  { name: 'cache_control valid', mutate: set('cache_control', { type: 'ephemeral', ttl: '1h', scope: 'global' }) },
  { name: 'cache_control null', mutate: set('cache_control', null) },
  { name: 'cache_control type', mutate: set('cache_control', { type: 'persistent' }), code: INVALID, path: 'cache_control.type' },
  { name: 'cache_control ttl', mutate: set('cache_control', { type: 'ephemeral', ttl: '10m' }), code: INVALID, path: 'cache_control.ttl' },
  { name: 'cache_control scope', mutate: set('cache_control', { type: 'ephemeral', scope: 'org' }), code: INVALID, path: 'cache_control.scope' },
  { name: 'cache_control unknown key', mutate: set('cache_control', { type: 'ephemeral', x: 1 }), code: INVALID, path: 'cache_control.x' },
  { name: 'cache_control string', mutate: set('cache_control', 'ephemeral'), code: INVALID, path: 'cache_control' },
  // diagnostics
  { name: 'diagnostics without beta', mutate: set('diagnostics', { previous_message_id: null }), code: REJECTED, path: 'diagnostics', contains: DIAG },
  { name: 'diagnostics null id', mutate: set('diagnostics', { previous_message_id: null }), betas: [DIAG] },
  { name: 'diagnostics real id', mutate: set('diagnostics', { previous_message_id: 'msg_01' }), betas: [DIAG] },
  { name: 'diagnostics empty id', mutate: set('diagnostics', { previous_message_id: '' }), betas: [DIAG], code: INVALID, path: 'diagnostics.previous_message_id' },
  { name: 'diagnostics id too long', mutate: set('diagnostics', { previous_message_id: 'm'.repeat(257) }), betas: [DIAG], code: INVALID, path: 'diagnostics.previous_message_id' },
  { name: 'diagnostics id 256', mutate: set('diagnostics', { previous_message_id: 'm'.repeat(256) }), betas: [DIAG] },
  { name: 'diagnostics id missing', mutate: set('diagnostics', {}), betas: [DIAG], code: INVALID, path: 'diagnostics.previous_message_id' },
  { name: 'diagnostics unknown key', mutate: set('diagnostics', { previous_message_id: null, x: 1 }), betas: [DIAG], code: INVALID, path: 'diagnostics.x' },
  // safeguards
  { name: 'safeguards without beta', mutate: set('safeguards', [{ type: 'dangerous_tool_use' }]), code: REJECTED, path: 'safeguards', contains: SAFE },
  { name: 'safeguards with beta, open inside', mutate: set('safeguards', [{ type: 'dangerous_tool_use', classifier_context: { v: 1, rules: { allow: [] } } }]), betas: [SAFE] },
  { name: 'safeguards item without type', mutate: set('safeguards', [{}]), betas: [SAFE], code: INVALID, path: 'safeguards[0].type' },
  { name: 'safeguards item empty type', mutate: set('safeguards', [{ type: '' }]), betas: [SAFE], code: INVALID, path: 'safeguards[0].type' },
  { name: 'safeguards not an array', mutate: set('safeguards', { type: 'x' }), betas: [SAFE], code: INVALID, path: 'safeguards' },
  // unsupported list
  { name: 'container id', mutate: set('container', 'container_01'), code: REJECTED, path: 'container', contains: 'Remove' },
  { name: 'container object', mutate: set('container', { id: 'c', skills: [] }), code: REJECTED, path: 'container' },
  { name: 'container empty string', mutate: set('container', '') },
  { name: 'container null', mutate: set('container', null) },
  { name: 'inference_geo', mutate: set('inference_geo', 'us'), code: REJECTED, path: 'inference_geo' },
  { name: 'mcp_servers non-empty', mutate: set('mcp_servers', [{ type: 'url', url: 'https://x', name: 'x' }]), code: REJECTED, path: 'mcp_servers' },
  { name: 'mcp_servers empty', mutate: set('mcp_servers', []) },
  { name: 'mcp_servers not an array', mutate: set('mcp_servers', 'x'), code: INVALID, path: 'mcp_servers' },
  // context_management
  { name: 'clear_thinking edit', mutate: set('context_management', { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }) },
  {
    name: 'clear_tool_uses edit with options',
    mutate: set('context_management', {
      edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 30000 }, keep: { type: 'tool_uses', value: 3 } }],
    }),
  },
  { name: 'context_management without edits', mutate: set('context_management', {}) },
  {
    name: 'compaction edit',
    mutate: set('context_management', { edits: [{ type: 'clear_thinking_20251015' }, { type: 'compact_20260112' }] }),
    code: REJECTED,
    path: 'context_management.edits[1].type',
    contains: 'compaction',
  },
  { name: 'edits not an array', mutate: set('context_management', { edits: {} }), code: INVALID, path: 'context_management.edits' },
  { name: 'edit not an object', mutate: set('context_management', { edits: ['x'] }), code: INVALID, path: 'context_management.edits[0]' },
  { name: 'edit without type', mutate: set('context_management', { edits: [{}] }), code: INVALID, path: 'context_management.edits[0].type' },
  { name: 'context_management unknown key', mutate: set('context_management', { edits: [], x: 1 }), code: INVALID, path: 'context_management.x' },
];

runCases(t, cases);

t.test('body must be an object', async (t) => {
  for (const v of [[], 'x', null, 5] as JsonValue[]) {
    const err = thrown(() => validate(v));
    t.equal(err.code, INVALID);
    t.match(err.message, /must be a JSON object/);
  }
});

t.test('unknown betas are accepted and gate nothing', async (t) => {
  const b = base();
  t.doesNotThrow(() => validate(b, ['future-beta-2099-01-01', 'claude-code-20250219']));
  const err = thrown(() => validate({ ...b, speed: 'fast' }, ['future-beta-2099-01-01']));
  assertError(t, err, REJECTED, 'speed');
});

t.test('prototype-looking keys are plain unknown fields', async (t) => {
  const top = JSON.parse('{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}],"__proto__":{"x":1}}') as JsonValue;
  assertError(t, thrown(() => validate(top)), INVALID, '__proto__', 'unknown field');
  const block = JSON.parse('{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"x","constructor":1}]}]}') as JsonValue;
  assertError(t, thrown(() => validate(block)), INVALID, 'messages[0].content[0].constructor');
  const type = JSON.parse('{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"toString"}]}]}') as JsonValue;
  assertError(t, thrown(() => validate(type)), INVALID, 'messages[0].content[0].type');
});

t.test('beta-gated messages name the field and the beta', async (t) => {
  const err = thrown(() => validate({ ...base(), speed: 'fast' }));
  t.equal(
    err.message,
    'capability_rejected: speed: the value "fast" needs the beta `fast-mode-2026-02-01` in the `anthropic-beta` header, ' +
      'and the request does not carry it. Send the beta together with the field, or remove the field. ' +
      'Unexpected value(s) `fast-mode-2026-02-01` for the `anthropic-beta` header.',
  );
  t.equal(err.param, 'speed');
});
