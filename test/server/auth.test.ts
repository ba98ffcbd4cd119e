// Authentication and endpoint scopes through real HTTP against bin/gateway.
import t from 'tap';
import { baseConfig, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { errorOf, rawRequest } from '../helpers/http.js';

const config = baseConfig({
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
    { id: 'chat-only', key: 'sk-test-chat-only', org: 'acme', scopes: ['chat.completions'] },
    { id: 'messages-only', key: 'sk-test-messages-only', org: 'acme', scopes: ['messages'] },
    { id: 'sonnet-only', key: 'sk-test-sonnet-only', org: 'acme', models: ['anthropic/claude-sonnet-*'] },
  ],
});
let gw: RunningGateway;
const body = JSON.stringify({ model: 'claude-opus-5', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] });
const base = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };

t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(async () => {
  await gw.stop();
});

async function post(headers: Record<string, string | string[]>, b = body): Promise<{ status: number; type: string | undefined; message: string; raw: string }> {
  const res = await rawRequest(`${gw.url}/v1/messages`, { headers: { ...base, ...headers }, body: b });
  if (res.status === 200) return { status: 200, type: undefined, message: '', raw: res.body };
  const err = errorOf(res.body);
  return { status: res.status, type: err.type, message: err.message, raw: res.body };
}

t.test('credentials: x-api-key or Bearer; both must match; duplicates and conflicts are 401', async (t) => {
  t.equal((await post({ 'x-api-key': TEST_KEY })).status, 200, 'x-api-key');
  t.equal((await post({ authorization: `Bearer ${TEST_KEY}` })).status, 200, 'Authorization: Bearer');
  t.equal((await post({ authorization: `bearer ${TEST_KEY}`, 'x-api-key': TEST_KEY })).status, 200, 'both, same key');
  const cases: [string, Record<string, string | string[]>, RegExp][] = [
    ['missing', {}, /No API key/],
    ['invalid', { 'x-api-key': 'sk-not-a-real-key' }, /Invalid API key/],
    ['conflicting', { 'x-api-key': TEST_KEY, authorization: 'Bearer sk-test-chat-only' }, /different keys/],
    ['duplicated x-api-key', { 'x-api-key': [TEST_KEY, TEST_KEY] }, /more than once/],
    ['duplicated authorization', { authorization: [`Bearer ${TEST_KEY}`, `Bearer ${TEST_KEY}`] }, /more than once/],
    ['not Bearer', { authorization: `Basic ${TEST_KEY}` }, /Bearer/],
  ];
  for (const [name, headers, message] of cases) {
    const r = await post(headers);
    t.equal(r.status, 401, name);
    t.equal(r.type, 'authentication_error', name);
    t.match(r.message, message, name);
    t.notMatch(r.raw, /sk-test-full-0000/, 'the key is never echoed');
  }
  const chat = await rawRequest(`${gw.url}/v1/chat/completions`, { headers: { 'content-type': 'application/json', 'x-api-key': 'wrong-key-123' }, body: '{}' });
  t.equal(chat.status, 401);
  t.match(errorOf(chat.body), { code: 'unauthorized' }, 'OpenAI-style endpoints use their own envelope');
});

t.test('endpoint scopes: empty allowlist is unrestricted; chat.completions does not imply messages', async (t) => {
  const denied = await post({ 'x-api-key': 'sk-test-chat-only' });
  t.equal(denied.status, 403);
  t.equal(denied.type, 'permission_error');
  t.match(denied.message, /messages/);
  t.equal((await post({ 'x-api-key': 'sk-test-messages-only' })).status, 200);
});

t.test('model allowlists with * globs', async (t) => {
  const denied = await post({ 'x-api-key': 'sk-test-sonnet-only' });
  t.equal(denied.status, 403);
  t.equal(denied.type, 'permission_error');
  t.match(denied.message, /anthropic\/claude-opus-5/);
  const allowed = await post({ 'x-api-key': 'sk-test-sonnet-only' }, JSON.stringify({ model: 'sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }));
  t.equal(allowed.status, 200);
});

t.test('keys are never logged', async (t) => {
  const all = JSON.stringify(gw.logs) + gw.stderr.join('\n');
  t.notMatch(all, /sk-test-full-0000|sk-test-chat-only|sk-test-sonnet-only/);
  t.ok(gw.logs.some((l) => l.msg === 'request' && l.keyId === 'full'), 'the key id is logged instead');
});
