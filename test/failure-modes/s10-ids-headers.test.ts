// FAILURE-MODES.md §10 — model ids, listing, headers, parameters.
import t from 'tap';
import { TEST_KEY } from '../helpers/gateway.js';
import { send } from './clients.js';
import { anthropicStream, chatSse, delta, modelId, responsesStream, startFm, usageChunk, type Api, type Script } from './upstream.js';

const script: Script = {
  'a-echo': { headers: { 'content-type': 'text/event-stream', 'request-id': 'req_upstream_123', 'anthropic-ratelimit-requests-remaining': '41', 'anthropic-ratelimit-tokens-remaining': '90000' }, body: anthropicStream('a-echo', [{ type: 'text', text: 'ok' }], 'end_turn') },
  'c-echo': { body: chatSse('c-echo', [delta({ role: 'assistant', content: 'ok' }), delta({}, 'stop'), usageChunk(9, 1)]) },
  'r-echo': { body: responsesStream('r-echo', [{ type: 'message', text: 'ok' }]) },
};
const models: { name: string; api: Api }[] = [
  { name: 'a-echo', api: 'messages' },
  { name: 'c-echo', api: 'chat' },
  { name: 'r-echo', api: 'responses' },
];
const CLIENT_ONLY = ['prompt_cache_retention', 'prompt_cache_key', 'client_metadata', 'store', 'include', 'stream_options', 'parallel_tool_calls'];
const CC_HEADERS = { 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14', 'x-app': 'cli', 'anthropic-dangerous-direct-browser-access': 'true', 'x-stainless-lang': 'js' };

t.test('failure modes §10', async (t) => {
  const { up, gw } = await startFm(t, script, models);
  const last = (m: string) => up.calls(m).at(-1)!;

  t.test('F64 client-only parameters (Codex, Copilot) never reach an upstream of another dialect', async (t) => {
    const codex = { input: [{ role: 'developer', content: 'You are Codex.' }, { role: 'user', content: 'hi' }], prompt_cache_key: 'sess-1', prompt_cache_retention: '24h', store: false, include: ['reasoning.encrypted_content'], parallel_tool_calls: true, stream: true };
    for (const m of ['a-echo', 'c-echo']) {
      const a = await send(gw, 'responses', { model: modelId(m), ...codex });
      t.equal(a.status, 200, `${m}: ${a.text.slice(0, 200)}`);
      const sent = Object.keys(last(m).body);
      // to a Chat deployment the gateway asks for usage itself (decisions §8), and prompt_cache_key /
      // prompt_cache_retention are Chat Completions parameters of OpenAI's own (kept for its cache)
      const own = m === 'c-echo' ? ['stream_options', 'prompt_cache_key', 'prompt_cache_retention'] : [];
      t.same(sent.filter((k) => CLIENT_ONLY.includes(k) && !own.includes(k)), [], `${m}: none of them upstream (${sent.join(',')})`);
    }
    const c = await send(gw, 'chat', { model: modelId('a-echo'), messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true }, parallel_tool_calls: true, prompt_cache_key: 'k' });
    t.equal(c.status, 200, c.text.slice(0, 200));
    t.same(Object.keys(last('a-echo').body).filter((k) => CLIENT_ONLY.includes(k)), [], 'Chat → Claude: none of them');
  });

  t.test('F65 anthropic-beta reaches an Anthropic deployment', async (t) => {
    await send(gw, 'messages', { model: modelId('a-echo'), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14,context-management-2025-06-27' } });
    t.equal(last('a-echo').headers['anthropic-beta'], 'interleaved-thinking-2025-05-14,context-management-2025-06-27');
  });

  t.test('F66 betas and Claude Code fingerprint headers never reach an OpenAI-API upstream', async (t) => {
    for (const m of ['c-echo', 'r-echo']) {
      await send(gw, 'messages', { model: modelId(m), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { headers: CC_HEADERS });
      const h = last(m).headers;
      for (const name of Object.keys(CC_HEADERS)) t.equal(h[name], undefined, `${m}: no ${name}`);
    }
  });

  t.test('F67 background model ids Claude Code sends resolve: dated snapshots, the [1m] suffix', async (t) => {
    const dated = await send(gw, 'messages', { model: 'claude-opus-5-20261015', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(dated.status, 200, `dated snapshot: ${dated.text.slice(0, 200)}`);
    const oneM = await send(gw, 'messages', { model: 'claude-opus-5[1m]', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(oneM.status, 200, `[1m] suffix: ${oneM.text.slice(0, 200)}`);
    const unknown = await send(gw, 'messages', { model: 'claude-haiku-4-5-20251001', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    if (unknown.status !== 200) t.match(unknown.json.error.message, /GET \/v1\/models/, 'an unknown id: a guided 400 naming the list');
  });

  t.test('F68 Claude Code /model discovery: the Anthropic list shape with Claude-named ids', async (t) => {
    const res = await fetch(`${gw.url}/v1/models?limit=1000`, { headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' } });
    t.equal(res.status, 200);
    const body = (await res.json()) as any;
    t.match(body, { has_more: false, first_id: String, last_id: String });
    t.ok(body.data.length > 0);
    for (const m of body.data) t.match(m, { id: String, type: 'model', display_name: String, created_at: String });
    t.ok(body.data.some((m: any) => /claude|anthropic/i.test(m.id)), 'ids Claude Code keeps (/(claude|anthropic)/i)');
  });

  t.test('F69 Codex asking <base>/models?client_version=… gets a 200 JSON list, never an error (it then uses its bundled catalog)', async (t) => {
    const res = await fetch(`${gw.url}/v1/models?client_version=0.169.0`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    t.equal(res.status, 200);
    const body = (await res.json()) as any;
    t.ok(Array.isArray(body.data), 'a list');
  });

  t.test('F70 auth header variants: Bearer on Messages, x-api-key on Chat, both naming the same key', async (t) => {
    const bearer = await send(gw, 'messages', { model: modelId('a-echo'), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { rawHeaders: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', authorization: `Bearer ${TEST_KEY}` } });
    t.equal(bearer.status, 200, `Messages with Authorization: Bearer: ${bearer.text.slice(0, 200)}`);
    const xkey = await send(gw, 'chat', { model: modelId('c-echo'), messages: [{ role: 'user', content: 'hi' }] }, { rawHeaders: { 'content-type': 'application/json', 'x-api-key': TEST_KEY } });
    t.equal(xkey.status, 200, `Chat with x-api-key: ${xkey.text.slice(0, 200)}`);
    const both = await send(gw, 'messages', { model: modelId('a-echo'), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    t.equal(both.status, 200, 'both headers with the same key');
  });

  t.test('F71 base URL path doubling: /v1/v1/messages and //v1/messages are answered usefully', async (t) => {
    for (const path of ['/v1/v1/messages', '//v1/messages']) {
      const a = await send(gw, 'messages', { model: modelId('a-echo'), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { path });
      if (a.status === 200) t.pass(`${path} served`);
      else {
        t.ok(a.status === 404 || a.status === 400, `${path}: ${a.text.slice(0, 200)}`);
        t.match(a.text, /`?POST \/v1\/messages|\/v1\/messages/, 'the answer names the right path');
      }
    }
  });

  t.test('F72 Anthropic response headers (request-id, anthropic-ratelimit-*) passed on', async (t) => {
    const a = await send(gw, 'messages', { model: modelId('a-echo'), max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(a.headers.get('request-id'), 'req_upstream_123', "the provider's request-id");
    // the provider's anthropic-ratelimit-* describe the gateway's own provider account, shared by every
    // key: the client gets the gateway's limits for its key instead (decisions §3), not the provider's
    t.equal(a.headers.get('anthropic-ratelimit-tokens-remaining'), null, "not the provider account's limits");
  });
});
