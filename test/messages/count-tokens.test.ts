// POST /v1/messages/count_tokens through bin/gateway: auth → version → scope → body validation (no
// max_tokens needed) → model; a valid request is always 404 not_found_error with guidance, and the
// provider is never called.
import t, { type Test } from 'tap';
import { baseConfig, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { countTokens, expectError, upstreamCalls } from '../helpers/messages.js';

const CHAT_KEY = 'sk-test-chat-only-0000';
const OPUS_ONLY = 'sk-test-opus-only-0000';
const config = baseConfig({
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
    { id: 'chat', key: CHAT_KEY, org: 'acme', scopes: ['chat.completions'] },
    { id: 'opus-only', key: OPUS_ONLY, org: 'acme', models: ['anthropic/claude-opus-5'] },
  ],
});
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const VALID = { model: 'claude-opus-5', messages: [{ role: 'user', content: 'foo' }], tools: [{ name: 'Read', description: 'read a file', input_schema: { type: 'object', properties: {} } }] };
const INVALID = { model: 'claude-opus-5', messages: [], bogus: 1 };
const CC_BETAS = 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,token-counting-2024-11-01';

/** a subtest that also checks the provider was never called */
function check(name: string, fn: (t: Test) => Promise<void>): void {
  t.test(name, async (t) => {
    await gw.clearSim();
    await fn(t);
    t.same(await upstreamCalls(gw), [], 'the provider was never called');
  });
}

check('checks in order: auth, version, scope, body, model', async (t) => {
  const noAuth = { 'content-type': 'application/json' };
  expectError(t, await countTokens(gw, INVALID, { rawHeaders: noAuth }), 401, 'authentication_error');
  const noVersion = { 'content-type': 'application/json', 'x-api-key': CHAT_KEY };
  expectError(t, await countTokens(gw, INVALID, { rawHeaders: noVersion }), 400, 'invalid_request_error', 'anthropic-version');
  expectError(t, await countTokens(gw, INVALID, { headers: { 'x-api-key': CHAT_KEY } }), 403, 'permission_error', 'messages');
  expectError(t, await countTokens(gw, { ...INVALID, model: 'nope-model' }), 400, 'invalid_request_error', 'bogus');
  expectError(t, await countTokens(gw, { ...VALID, messages: [{ role: 'user', content: [{ type: 'text' }] }], model: 'nope-model' }), 400, 'invalid_request_error', 'messages[0].content[0].text');
  const unknown = expectError(t, await countTokens(gw, { ...VALID, model: 'nope-model' }), 400, 'invalid_request_error', '"nope-model"');
  t.match(unknown.error.message, /GET \/v1\/models/);
  expectError(t, await countTokens(gw, { ...VALID, model: 'sonnet' }, { headers: { 'x-api-key': OPUS_ONLY } }), 403, 'permission_error', 'anthropic/claude-sonnet-5');
});

check('a valid request: 404 not_found_error with guidance, no max_tokens needed', async (t) => {
  const r = await countTokens(gw, VALID, { query: '?beta=true', headers: { 'anthropic-beta': CC_BETAS } });
  const body = expectError(t, r, 404, 'not_found_error', 'Token counting is not available');
  t.match(body.error.message, /nothing was charged/);
  t.match(body.error.message, /usage\.input_tokens/);
  t.equal(r.headers.get('x-should-retry'), 'false', 'not worth retrying');
  for (const extra of [{ max_tokens: 1024 }, { model: 'gateway-auto' }, { model: 'opus', thinking: { type: 'adaptive' }, system: 'be brief' }]) {
    expectError(t, await countTokens(gw, { ...VALID, ...extra }, { headers: { 'anthropic-version': '2026-10-21' } }), 404, 'not_found_error');
  }
});

check('its query rule is that of /v1/messages', async (t) => {
  expectError(t, await countTokens(gw, VALID, { query: '?beta=true&beta=true' }), 400, 'invalid_request_error', 'beta');
  expectError(t, await countTokens(gw, VALID, { query: '?limit=1' }), 400, 'invalid_request_error', 'limit');
});
