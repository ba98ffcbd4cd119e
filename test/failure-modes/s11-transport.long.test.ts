// FAILURE-MODES.md §11 — transport: keep-alives from the start of a request, compression and
// hop-by-hop hygiene, 20 MB Claude Code bodies, stateless Responses chains, Codex's system prompt.
import { request } from 'node:http';
import t from 'tap';
import { startGateway, TEST_KEY } from '../helpers/gateway.js';
import { accumulateMessages, answerOf, checkMessagesStream, checkResponsesStream, clientHeaders, send, type Endpoint } from './clients.js';
import { anthropicJson, anthropicStream, chatSse, delta, fmConfig, JSON_HEAD, modelId, responsesSse, scriptedUpstream, usageChunk, type Script } from './upstream.js';

const PING_MS = 300;
const SLOW = 1500;

const script: Script = {
  'a-echo': { body: anthropicStream('a-echo', [{ type: 'text', text: 'ok' }], 'end_turn') },
  'a-slow': { delayMs: SLOW, body: anthropicStream('a-slow', [{ type: 'text', text: 'late but fine' }], 'end_turn') },
  'a-gzip-json': { headers: JSON_HEAD, gzip: true, body: anthropicJson('a-gzip-json', [{ type: 'text', text: 'unzipped' }], 'end_turn') },
  'a-gzip-sse': { gzip: true, body: anthropicStream('a-gzip-sse', [{ type: 'text', text: 'unzipped stream' }], 'end_turn') },
  'a-gzip-404': { status: 404, headers: JSON_HEAD, gzip: true, body: JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'model: claude-x' } }) },
  'a-two-pieces': { body: [anthropicStream('a-two-pieces', [{ type: 'text', text: 'first' }], 'end_turn').split('event: message_delta')[0]!, 'event: message_delta' + anthropicStream('a-two-pieces', [{ type: 'text', text: 'first' }], 'end_turn').split('event: message_delta')[1]!], gapMs: 800 },
  'c-echo': { body: chatSse('c-echo', [delta({ role: 'assistant', content: 'ok' }), delta({}, 'stop'), usageChunk(9, 1)]) },
  'c-slow': { delayMs: SLOW, body: chatSse('c-slow', [delta({ role: 'assistant', content: 'late' }), delta({}, 'stop'), usageChunk(9, 1)]) },
  'c-stall': { body: [chatSse('c-stall', [delta({ role: 'assistant', content: 'then silence' })], false), ''], gapMs: 3000 },
  'r-no-completed': {
    body: responsesSse(
      { type: 'response.created', response: { id: 'resp_n', object: 'response', created_at: 1, model: 'r-no-completed', status: 'in_progress', output: [] } },
      { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_n', type: 'message', role: 'assistant', status: 'in_progress', content: [] } },
      { type: 'response.content_part.added', item_id: 'msg_n', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      { type: 'response.output_text.delta', item_id: 'msg_n', output_index: 0, content_index: 0, delta: 'and then nothing' },
    ),
  },
};

t.test('failure modes §11', async (t) => {
  const up = await scriptedUpstream(script);
  const base = fmConfig(up.url, [
    ...['a-echo', 'a-missing', 'a-slow', 'a-gzip-json', 'a-gzip-sse', 'a-gzip-404', 'a-two-pieces'].map((name) => ({ name, api: 'messages' as const })),
    ...['c-echo', 'c-slow'].map((name) => ({ name, api: 'chat' as const })),
    { name: 'r-no-completed', api: 'responses' as const },
  ]);
  const config = {
    ...base,
    pingIntervalMs: PING_MS,
    providers: [...(base.providers as object[]), { id: 'up-openai-idle', protocol: 'openai', baseUrl: `${up.url}/v1`, apiKey: 'sk-up', timeoutMs: 4000, idleTimeoutMs: 500 }],
    models: [...(base.models as object[]), { id: 'fm/c-stall', family: 'openai', deployments: [{ provider: 'up-openai-idle', model: 'c-stall', api: 'chat' }], pricing: { input: 1, output: 2 }, maxOutputTokens: 8192 }],
  };
  const gw = await startGateway(config);
  t.teardown(async () => {
    await gw.stop();
    await up.close();
  });
  const last = (m: string) => up.calls(m).at(-1)!;

  const streamBodies: Record<Endpoint, (m: string) => Record<string, unknown>> = {
    messages: (m) => ({ model: modelId(m), max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    chat: (m) => ({ model: modelId(m), stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    responses: (m) => ({ model: modelId(m), stream: true, input: 'hi' }),
  };
  for (const [ep, m] of [['messages', 'a-slow'], ['chat', 'c-slow'], ['responses', 'a-slow']] as const) {
    t.test(`F73 keep-alives from the start of a request, before the upstream answers (${ep})`, async (t) => {
      const started = Date.now();
      const res = await fetch(`${gw.url}${ep === 'messages' ? '/v1/messages' : ep === 'chat' ? '/v1/chat/completions' : '/v1/responses'}`, { method: 'POST', headers: clientHeaders(ep), body: JSON.stringify(streamBodies[ep](m)) });
      const reader = res.body!.getReader();
      const first = await reader.read();
      const firstAt = Date.now() - started;
      t.ok(firstAt < SLOW - 200, `first bytes after ${firstAt} ms, before the upstream answered (${SLOW} ms)`);
      const firstText = Buffer.from(first.value ?? []).toString();
      t.match(firstText, ep === 'messages' ? /^event: ping\n/ : /^: /, 'a keep-alive frame first');
      let rest = firstText;
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        rest += Buffer.from(r.value).toString();
      }
      const a = answerOf(res.status, res.headers, rest);
      if (ep === 'messages') {
        t.equal(a.frames.find((f) => f.event !== 'ping')?.event, 'message_start');
        t.equal(a.frames.at(-1)?.event, 'message_stop', 'the answer follows in full');
      } else if (ep === 'chat') t.equal(a.frames.at(-1)?.data, '[DONE]');
      else t.equal(a.frames.at(-1)?.event, 'response.completed');
    });
  }

  // F62 beside F73: the head waits for the ping interval, so a provider that fails at once is still an HTTP status
  t.test('F73 a fast upstream failure is still an HTTP status: keep-alives wait for the ping interval', async (t) => {
    const a = await send(gw, 'messages', { model: modelId('a-missing'), max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(a.status, 404, `the provider's 404: ${a.text.slice(0, 200)}`);
    t.equal(a.json?.type, 'error');
  });

  t.test('F74 Content-Encoding never kept on a body the gateway decoded (JSON, SSE, error)', async (t) => {
    const j = await send(gw, 'messages', { model: modelId('a-gzip-json'), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(j.status, 200, j.text.slice(0, 200));
    t.equal(j.headers.get('content-encoding'), null);
    t.equal(j.json?.content?.[0]?.text, 'unzipped');
    const s = await send(gw, 'messages', { model: modelId('a-gzip-sse'), max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    checkMessagesStream(t, s);
    t.equal(s.headers.get('content-encoding'), null);
    t.match(accumulateMessages(s).blocks, [{ text: 'unzipped stream' }]);
    const e = await send(gw, 'messages', { model: modelId('a-gzip-404'), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(e.headers.get('content-encoding'), null);
    t.match(e.json?.error?.message ?? '', /claude-x/, `error body readable: ${e.text.slice(0, 200)}`);
  });

  t.test('F75 a stream is never compressed or buffered: events arrive as the upstream sends them', async (t) => {
    const started = Date.now();
    const res = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: clientHeaders('messages', { 'accept-encoding': 'gzip, deflate, br' }), body: JSON.stringify(streamBodies.messages('a-two-pieces')) });
    t.equal(res.headers.get('content-encoding'), null, 'not compressed');
    const reader = res.body!.getReader();
    let text = '';
    let sawTextAt = 0;
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      text += Buffer.from(r.value).toString();
      if (sawTextAt === 0 && text.includes('"first"')) sawTextAt = Date.now() - started;
    }
    t.ok(sawTextAt > 0 && sawTextAt < 700, `the first piece arrived after ${sawTextAt} ms, before the upstream's second (800 ms)`);
  });

  t.test('F76 a 20 MB Claude Code body is accepted; over 32 MiB is a 413 in the Messages envelope', async (t) => {
    const big = 'x'.repeat(20 * 1024 * 1024);
    const a = await send(gw, 'messages', { model: modelId('a-echo'), max_tokens: 50, messages: [{ role: 'user', content: big }] });
    t.equal(a.status, 200, a.text.slice(0, 200));
    t.ok(last('a-echo').raw.length > 20 * 1024 * 1024, 'the whole body reached the upstream');
    const huge = await send(gw, 'messages', { model: modelId('a-echo'), max_tokens: 50, messages: [{ role: 'user', content: 'x'.repeat(33 * 1024 * 1024) }] });
    t.equal(huge.status, 413);
    t.equal(huge.json?.error?.type, 'request_too_large');
  });

  t.test('F77 proxy/CDN and hop-by-hop headers are not forwarded upstream', async (t) => {
    const body = JSON.stringify({ model: modelId('a-echo'), max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { ...clientHeaders('messages'), 'cf-visitor': '{"scheme":"https"}', 'cf-warp-tag-id': 'abc', 'cf-connecting-ip': '203.0.113.9', 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '203.0.113.9', 'keep-alive': 'timeout=5', te: 'trailers', 'proxy-authorization': 'Basic eDp5', 'content-length': String(Buffer.byteLength(body)) },
      }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
    t.equal(status, 200);
    const h = last('a-echo').headers;
    for (const name of ['cf-visitor', 'cf-warp-tag-id', 'cf-connecting-ip', 'x-forwarded-for', 'x-real-ip', 'keep-alive', 'te', 'proxy-authorization']) t.equal(h[name], undefined, `no ${name}`);
    t.equal(h['x-api-key'], 'sk-up-anthropic', "the provider's own key, never the client's");
  });

  t.test('F78 a Responses stream always ends with a terminal event: idle upstream, upstream without response.completed', async (t) => {
    const idle = await send(gw, 'responses', streamBodies.responses('c-stall'));
    checkResponsesStream(t, idle, 'response.failed');
    const cut = await send(gw, 'responses', streamBodies.responses('r-no-completed'));
    checkResponsesStream(t, cut, 'response.failed');
  });

  const twoRounds = [
    { role: 'user', content: 'look around' },
    { type: 'function_call', call_id: 'call_A', name: 'bash', arguments: '{"command":"ls"}' },
    { type: 'function_call_output', call_id: 'call_A', output: 'a.txt' },
    { type: 'function_call', call_id: 'call_B', name: 'bash', arguments: '{"command":"cat a.txt"}' },
    { type: 'function_call_output', call_id: 'call_B', output: 'hello' },
  ];
  const BASH = [{ type: 'function', name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } }];
  t.test('F79 stateless Responses chains bridged to Messages and Chat keep every round', async (t) => {
    const a = await send(gw, 'responses', { model: modelId('a-echo'), input: twoRounds, tools: BASH });
    t.equal(a.status, 200, a.text.slice(0, 300));
    const msgs = last('a-echo').body.messages;
    t.same(
      msgs.map((m: any) => `${m.role}:${(Array.isArray(m.content) ? m.content : [{ type: 'text' }]).map((b: any) => b.type).join('+')}`),
      ['user:text', 'assistant:tool_use', 'user:tool_result', 'assistant:tool_use', 'user:tool_result'],
    );
    t.equal(msgs[2].content[0].tool_use_id, msgs[1].content[0].id);
    t.equal(msgs[4].content[0].tool_use_id, msgs[3].content[0].id);
    const c = await send(gw, 'responses', { model: modelId('c-echo'), input: twoRounds, tools: BASH });
    t.equal(c.status, 200, c.text.slice(0, 300));
    const chat = last('c-echo').body.messages;
    t.same(
      chat.map((m: any) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'tool'],
    );
    t.same([chat[2].tool_call_id, chat[4].tool_call_id], [chat[1].tool_calls[0].id, chat[3].tool_calls[0].id]);
  });

  t.test('F80 Codex’s developer message in input[0] becomes the system prompt', async (t) => {
    const input = [{ role: 'developer', content: 'You are Codex.' }, { role: 'user', content: 'hi' }];
    await send(gw, 'responses', { model: modelId('a-echo'), input });
    const body = last('a-echo').body;
    t.match(JSON.stringify(body.system), /You are Codex\./, 'Anthropic: system');
    t.notOk(body.messages.some((m: any) => m.role !== 'user' && m.role !== 'assistant'), 'no other role in messages');
    await send(gw, 'responses', { model: modelId('c-echo'), input });
    t.match(last('c-echo').body.messages[0], { role: /^(system|developer)$/, content: /You are Codex\./ }, 'Chat: a leading system/developer message');
  });

  t.test('F81 POST /v1/responses served by a Claude deployment', async (t) => {
    const a = await send(gw, 'responses', { model: modelId('a-echo'), input: 'hi' });
    t.equal(a.status, 200, a.text.slice(0, 200));
    t.match(a.json, { object: 'response', status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text: 'ok' }] }] });
    t.equal(TEST_KEY.length > 0, true);
  });
});
