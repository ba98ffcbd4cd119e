// What a caller can learn from the gateway's refusals (issue #18): the unknown-model hint names only
// models the key's allowlist admits, on every endpoint that gives one; the stored-response routes
// authenticate (and check the key's scope) before their 400, like POST /v1/responses.
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, TEST_KEY, type RunningGateway } from '../helpers/gateway.js';
import { errorOf, rawRequest } from '../helpers/http.js';

const SONNET_ONLY = 'sk-test-sonnet-only-0000';
const MSG_ONLY = 'sk-test-messages-only-0000';
let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(
    baseConfig({
      keys: [
        { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
        { id: 'sonnet-only', key: SONNET_ONLY, org: 'acme', models: ['anthropic/claude-sonnet-*'] },
        { id: 'messages-only', key: MSG_ONLY, org: 'acme', scopes: ['messages'] },
      ],
    }),
  );
});
t.teardown(() => gw?.stop());

/** the names after "Close matches:" (and "Models that transcribe:") in a hint */
function named(message: string): string[] {
  const lists = [...message.matchAll(/(?:Close matches|Models that transcribe): ([^.]+(?:\.\d[^.]*)*)\./g)].map((m) => m[1]!);
  return lists.flatMap((l) => l.split(', '));
}

t.test('the unknown-model hint names only models the key may use', async (t) => {
  const body = JSON.stringify({ model: 'claude-opus-9', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] });
  const full = await rawRequest(`${gw.url}/v1/messages`, { headers: messagesHeaders(), body });
  t.equal(full.status, 400);
  t.ok(named(errorOf(full.body).message).some((n) => n.includes('opus')), `an unrestricted key is shown opus: ${errorOf(full.body).message}`);

  const messages = await rawRequest(`${gw.url}/v1/messages`, { headers: messagesHeaders({ 'x-api-key': SONNET_ONLY }), body });
  const chat = await rawRequest(`${gw.url}/v1/chat/completions`, {
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SONNET_ONLY}` },
    body: JSON.stringify({ model: 'gpt-5-turbo', messages: [{ role: 'user', content: 'x' }] }),
  });
  const form = new FormData();
  form.set('model', 'whisper-9');
  form.set('file', new Blob([Buffer.alloc(64)]), 'a.wav');
  const audio = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${SONNET_ONLY}` }, body: form });
  const audioBody = await audio.text();
  for (const [name, status, text] of [['messages', messages.status, messages.body], ['chat', chat.status, chat.body], ['transcriptions', audio.status, audioBody]] as const) {
    t.equal(status, 400, `${name}: ${text.slice(0, 200)}`);
    const { message } = errorOf(text);
    const names = named(message);
    t.ok(names.length > 0 || name === 'transcriptions', `${name}: a hint is given: ${message}`);
    const outside = names.filter((n) => !/sonnet/.test(n));
    t.same(outside, [], `${name}: no model outside the allowlist is named: ${message}`);
  }
});

const STORED: [string, string][] = [
  ['GET', '/v1/responses/resp_1'],
  ['DELETE', '/v1/responses/resp_1'],
  ['GET', '/v1/responses/resp_1/input_items'],
  ['POST', '/v1/responses/resp_1/cancel'],
  ['POST', '/v1/responses/compact'],
];

t.test('the stored-response routes authenticate before their 400', async (t) => {
  for (const [method, path] of STORED) {
    const none = await rawRequest(`${gw.url}${path}`, { method });
    t.equal(none.status, 401, `${method} ${path} without a key: ${none.body}`);
    t.equal(errorOf(none.body).code, 'unauthorized');
    t.ok(none.headers['x-request-id'] ?? none.headers['request-id'], 'a request id');
    const wrong = await rawRequest(`${gw.url}${path}`, { method, headers: { authorization: 'Bearer sk-nope-0000' } });
    t.equal(wrong.status, 401, `${method} ${path} with an unknown key`);
    const scoped = await rawRequest(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${MSG_ONLY}` } });
    t.equal(scoped.status, 403, `${method} ${path} with a key not scoped to responses`);
    t.equal(errorOf(scoped.body).code, 'endpoint_not_allowed');
    const ok = await rawRequest(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${TEST_KEY}` } });
    t.equal(ok.status, 400, `${method} ${path} with a valid key: the spec's 400`);
    t.equal(errorOf(ok.body).code, 'invalid_request');
  }
});
