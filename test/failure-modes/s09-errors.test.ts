// FAILURE-MODES.md §9 — errors, retries and failover: retry-after on every 429, the answer that
// stops retries on exhausted credit, readable envelopes, family-correct terminal events after the
// first byte, statuses (not 200) before it, 529.
import t from 'tap';
import { accumulateMessages, checkMessagesStream, checkResponsesStream, send, type Endpoint } from './clients.js';
import { anthropicSse, anthropicStream, chatSse, delta, JSON_HEAD, messageStart, modelId, recordedError, recordedStream, startFm, type Api, type Script } from './upstream.js';

const BROKE_KEY = 'sk-test-broke-0000';
const text = (i: number, s: string): Record<string, unknown>[] => [
  { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: s } },
];

const script: Script = {
  'a-429-bare': { status: 429, headers: JSON_HEAD, body: JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }) },
  'a-429-quota': { status: 429, headers: { ...JSON_HEAD, 'retry-after': '287441', 'anthropic-ratelimit-unified-status': 'rejected' }, body: JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'quota exhausted' } }) },
  'c-databricks': { status: 400, headers: JSON_HEAD, body: JSON.stringify({ error_code: 'BAD_REQUEST', message: 'max_tokens must be at most 4096' }) },
  'c-fastapi': { status: 400, headers: JSON_HEAD, body: JSON.stringify({ detail: 'Unsupported parameter: seed' }) },
  // the content is written, then (once the client has it) the connection drops
  'c-cut': { body: [chatSse('c-cut', [delta({ role: 'assistant', content: 'half an ans' })], false), ''], gapMs: 300, cut: true },
  'a-midstream-overloaded': { body: anthropicSse(messageStart('a-midstream-overloaded'), ...text(0, 'partial')) + recordedStream('errors/anthropic-200-midstream-overloaded_error.frame.sse') },
  'a-no-stop': {
    body: anthropicSse(messageStart('a-no-stop'), ...text(0, 'looks fine'), { type: 'content_block_stop', index: 0 }, { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } }),
  },
  'a-partial-error': { body: anthropicSse(messageStart('a-partial-error'), ...text(0, 'par')) + 'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}' },
  'a-dies-after-content': { body: [anthropicSse(messageStart('a-dies-after-content'), ...text(0, 'first provider')), ''], gapMs: 300, cut: true },
  'a-dies-before-content': { body: anthropicSse(messageStart('a-dies-before-content'), { type: 'ping' }), cut: true },
  'a-ok': { body: anthropicStream('a-ok', [{ type: 'text', text: 'second provider' }], 'end_turn') },
  'a-400-signature': { status: 400, headers: JSON_HEAD, body: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'messages.1.content.0: Invalid `signature` in `thinking` block' } }) },
  'a-529': recordedError('anthropic-529-overloaded_error'),
  'a-overloaded-first': { body: anthropicSse(messageStart('a-overloaded-first'), { type: 'ping' }) + recordedStream('errors/anthropic-200-midstream-overloaded_error.frame.sse') },
  'a-500': { status: 500, headers: JSON_HEAD, body: JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } }) },
};
const single: { name: string; api: Api }[] = Object.keys(script).map((name) => ({ name, api: name.startsWith('c-') ? 'chat' : 'messages' }));
const dep = (model: string): Record<string, unknown> => ({ provider: 'up-anthropic', model });
const chains: { name: string; api: Api; extra: Record<string, unknown> }[] = [
  { name: 'after-content', api: 'messages', extra: { deployments: [dep('a-dies-after-content'), dep('a-ok')] } },
  { name: 'before-content', api: 'messages', extra: { deployments: [dep('a-dies-before-content'), dep('a-ok')] } },
  { name: 'all-fail', api: 'messages', extra: { deployments: [dep('a-500'), dep('a-529')] } },
];

const ask: Record<Endpoint, (m: string, stream: boolean) => Record<string, unknown>> = {
  messages: (m, stream) => ({ model: modelId(m), max_tokens: 100, stream, messages: [{ role: 'user', content: 'hi' }] }),
  chat: (m, stream) => ({ model: modelId(m), stream, messages: [{ role: 'user', content: 'hi' }] }),
  responses: (m, stream) => ({ model: modelId(m), stream, input: 'hi' }),
};
const ENDPOINTS: Endpoint[] = ['messages', 'chat', 'responses'];

t.test('failure modes §9', async (t) => {
  const extra = {
    orgs: [
      { id: 'acme', credits: 100, projects: [{ id: 'web', environments: [{ id: 'production' }] }] },
      { id: 'broke', credits: 0, projects: [{ id: 'p', environments: [{ id: 'e' }] }] },
    ],
    keys: [
      { id: 'full', key: 'sk-test-full-0000', org: 'acme', project: 'web', environment: 'production' },
      { id: 'broke', key: BROKE_KEY, org: 'broke', project: 'p', environment: 'e' },
    ],
  };
  const { up, gw } = await startFm(t, script, [...single, ...chains], extra);

  for (const ep of ENDPOINTS) {
    t.test(`F59 a 429 always carries retry-after (${ep}); a quota rejection keeps the provider's long one`, async (t) => {
      const a = await send(gw, ep, ask[ep]('a-429-bare', false));
      // an OpenAI-style client gets the spec's 503 provider_unavailable when the providers failed
      t.equal(a.status, ep === 'messages' ? 429 : 503, a.text.slice(0, 200));
      t.match(a.headers.get('retry-after') ?? '', /^\d+$/, 'retry-after in seconds');
      if (ep !== 'messages') return;
      const q = await send(gw, ep, ask[ep]('a-429-quota', true));
      t.equal(q.status, 429);
      t.equal(q.headers.get('retry-after'), '287441', 'the provider’s retry-after (Claude Code gives up above 60 s)');
    });
    t.test(`F59 exhausted credit: an answer that stops retries (${ep})`, async (t) => {
      const a = await send(gw, ep, ask[ep]('a-ok', false), { headers: ep === 'messages' ? { 'x-api-key': BROKE_KEY } : { authorization: `Bearer ${BROKE_KEY}` } });
      t.equal(a.status, 402, a.text.slice(0, 200));
      t.equal(a.headers.get('x-should-retry'), 'false', 'x-should-retry: false');
      t.equal(a.headers.get('retry-after'), null, 'no retry-after to wait for');
    });
  }

  t.test('F60 provider error bodies outside the official envelopes reach the client in its own envelope, with the words', async (t) => {
    for (const [m, words] of [['c-databricks', 'max_tokens must be at most 4096'], ['c-fastapi', 'Unsupported parameter: seed']] as const) {
      const c = await send(gw, 'chat', ask.chat(m, false));
      t.equal(c.status, 400);
      t.equal(c.json.error.message, words, `Chat: ${c.text.slice(0, 200)}`);
      const a = await send(gw, 'messages', ask.messages(m, false));
      t.match(a.json, { type: 'error', error: { type: 'invalid_request_error', message: words } }, `Messages: ${a.text.slice(0, 200)}`);
    }
  });

  t.test('F61 a stream cut mid-way ends with the family’s terminal error, never as a success', async (t) => {
    const r = await send(gw, 'responses', ask.responses('c-cut', true));
    checkResponsesStream(t, r, 'response.failed');
    t.ok(r.data.at(-1).response.error?.message, 'response.failed carries the reason');
    const m = await send(gw, 'messages', ask.messages('c-cut', true));
    checkMessagesStream(t, m, { terminal: 'error' });
    const c = await send(gw, 'chat', ask.chat('c-cut', true));
    t.notOk(c.data.some((d) => d?.choices?.[0]?.finish_reason === 'stop'), 'Chat: no finish_reason stop');
    t.ok(c.data.some((d) => d?.error), 'Chat: an error chunk');
  });

  for (const m of ['a-midstream-overloaded', 'a-no-stop', 'a-partial-error']) {
    t.test(`F61 ${m}: Responses gets response.failed, Messages event: error, Chat an error chunk`, async (t) => {
      const r = await send(gw, 'responses', ask.responses(m, true));
      checkResponsesStream(t, r, 'response.failed');
      const a = await send(gw, 'messages', ask.messages(m, true));
      checkMessagesStream(t, a, { terminal: 'error' });
      const c = await send(gw, 'chat', ask.chat(m, true));
      t.ok(c.data.some((d) => d?.error), 'Chat: an error chunk');
    });
  }

  t.test('F62 no failover after content: one message_start, then the error', async (t) => {
    const a = await send(gw, 'messages', ask.messages('after-content', true));
    checkMessagesStream(t, a, { terminal: 'error' });
    t.match(accumulateMessages(a).blocks, [{ text: 'first provider' }]);
    t.equal(up.calls('a-ok').length, 0, 'the second deployment was not called');
  });

  t.test('F62 failover before content: the client sees only the second answer', async (t) => {
    const a = await send(gw, 'messages', ask.messages('before-content', true));
    checkMessagesStream(t, a);
    t.match(accumulateMessages(a).blocks, [{ text: 'second provider' }]);
  });

  for (const ep of ENDPOINTS) {
    t.test(`F62 when every deployment fails before the first byte: an error status with retry-after, never 200 + SSE (${ep})`, async (t) => {
      const a = await send(gw, ep, ask[ep]('all-fail', true));
      t.ok(a.status >= 500, `status ${a.status}`);
      t.match(a.headers.get('content-type'), /json/);
      t.match(a.headers.get('retry-after') ?? '', /^\d+$/, 'retry-after');
    });
    t.test(`F62 a provider 400 is a 400, never 200 + error JSON (${ep})`, async (t) => {
      const a = await send(gw, ep, ask[ep]('a-400-signature', true));
      t.equal(a.status, 400, a.text.slice(0, 200));
    });
  }

  t.test('F63 529 overloaded reaches a Messages client as 529 overloaded_error (Claude Code retries it)', async (t) => {
    for (const m of ['a-529', 'a-overloaded-first']) {
      for (const stream of [false, true]) {
        const a = await send(gw, 'messages', ask.messages(m, stream));
        t.equal(a.status, 529, `${m} stream ${stream}: ${a.text.slice(0, 200)}`);
        t.equal(a.json?.error?.type, 'overloaded_error');
      }
    }
  });
});
