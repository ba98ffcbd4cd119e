// The CanonicalRequest built by validateMessagesRequest.
import t from 'tap';
import type { JsonObject } from '../../../lib/chunks.js';
import { validateMessagesRequest } from '../../../lib/dialects/anthropic/validate.js';
import { at, base, list, toolBase, validate } from './validate-harness.js';

t.test('shape of a minimal request', async (t) => {
  const body = base();
  const snapshot = JSON.stringify(body);
  const req = validate(body);
  t.equal(req.source, 'anthropic');
  t.equal(req.body, body, 'body is the input object itself');
  t.equal(JSON.stringify(body), snapshot, 'body is not modified');
  t.equal(req.model, 'claude-opus-5');
  t.equal(req.stream, false);
  t.equal(req.maxTokens, 4096);
  t.same([...req.needs.modalities], ['text']);
  t.equal(req.needs.tools, false);
  t.equal(req.needs.reasoning, false);
  t.equal(req.needs.signedThinking, false);
  t.equal(req.needs.speed, undefined);
  t.equal(req.hostedToolUses, 0);
  t.same(req.labels, {});
  t.same(req.forward, { betas: [], headers: {}, sessionId: undefined });
});

t.test('count_tokens without max_tokens', async (t) => {
  const body = base();
  delete body.max_tokens;
  t.equal(validate(body, [], { countTokens: true }).maxTokens, null);
});

t.test('stream and speed', async (t) => {
  const req = validate({ ...base(), stream: true, speed: 'fast' }, ['fast-mode-2026-02-01']);
  t.equal(req.stream, true);
  t.equal(req.needs.speed, 'fast');
});

t.test('needs.reasoning', async (t) => {
  const cases: [JsonObject, boolean][] = [
    [{ thinking: { type: 'adaptive' } }, true],
    [{ thinking: { type: 'enabled', budget_tokens: 1024 } }, true],
    [{ thinking: { type: 'disabled' } }, false],
    [{ output_config: { effort: 'low' } }, true],
    [{ output_config: {} }, false],
  ];
  for (const [extra, expected] of cases) t.equal(validate({ ...base(), ...extra }).needs.reasoning, expected, JSON.stringify(extra));
});

t.test('needs: images, tools, signed thinking', async (t) => {
  const body = toolBase();
  list(body, 'messages', 0, 'content').push({ type: 'image', source: { type: 'url', url: 'https://x/a.png' } });
  list(body, 'messages', 1, 'content').unshift({ type: 'thinking', thinking: 't', signature: 's' });
  const req = validate(body);
  t.same([...req.needs.modalities].sort(), ['image', 'text']);
  t.equal(req.needs.tools, true);
  t.equal(req.needs.signedThinking, true);

  const redacted = toolBase();
  list(redacted, 'messages', 1, 'content').unshift({ type: 'redacted_thinking', data: 'x' });
  t.equal(validate(redacted).needs.signedThinking, true, 'redacted_thinking counts');
  t.equal(validate(toolBase()).needs.signedThinking, false, 'a plain tool round trip does not');
  const inResult = toolBase();
  at(inResult, 'messages', 2, 'content', 0).content = [{ type: 'image', source: { type: 'url', url: 'https://x/b.png' } }];
  t.ok(validate(inResult).needs.modalities.has('image'), 'an image inside a tool_result counts');
});

t.test('labels.endUserId', async (t) => {
  t.same(validate({ ...base(), metadata: { user_id: 'u-1' } }).labels, { endUserId: 'u-1' });
  t.same(validate({ ...base(), metadata: { user_id: null } }).labels, {});
  t.same(validate({ ...base(), metadata: {} }).labels, {});
});

t.test('forward comes from the header info', async (t) => {
  const header = { version: '2023-06-01', betas: ['a-1', 'b-2'], sessionId: 's-1', forward: { 'anthropic-x': 'y' } };
  const req = validateMessagesRequest(base(), header, { betas: header.betas });
  t.same(req.forward, { betas: ['a-1', 'b-2'], headers: { 'anthropic-x': 'y' }, sessionId: 's-1' });
});

t.test('inputTokenBound', async (t) => {
  const small = validate(base()).inputTokenBound;
  t.ok(small >= 16, `at least the per-message overhead (${small})`);
  const text = 'x'.repeat(10_000);
  const big = validate({ ...base(), messages: [{ role: 'user', content: text }] }).inputTokenBound;
  t.ok(big >= 5000 && big < 5200, `about bytes/2 (${big})`);
  const multi = validate({ ...base(), messages: [{ role: 'user', content: 'é'.repeat(1000) }] }).inputTokenBound;
  t.ok(multi >= 1000, `counts UTF-8 bytes (${multi})`);
  const withSystem = validate({ ...base(), system: text }).inputTokenBound;
  t.ok(withSystem >= 5000, 'system counts');
  const withTools = validate({ ...base(), tools: [{ name: 't', description: text, input_schema: {} }] }).inputTokenBound;
  t.ok(withTools >= 5000, 'tools count');
  const data = 'A'.repeat(1_000_000);
  const image = validate({
    ...base(),
    messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }] }],
  }).inputTokenBound;
  t.ok(image >= 1600 && image < 2000, `an image counts 1600 tokens, not its data (${image})`);
});
