// Every fault kind of the simulated provider, on each protocol it applies to.
import t from 'tap';
import type { SimProvider } from '../../lib/sim/server.js';
import { anthropic, chat, dataOf, msgs, parseSse, readAll, responses, startSim, transcribe, type J } from './util.js';

type Proto = 'anthropic' | 'chat' | 'responses';
const PROTOS: Proto[] = ['anthropic', 'chat', 'responses'];

function send(sim: SimProvider, proto: Proto, model: string, stream: boolean, extra: J = {}): Promise<Response> {
  if (proto === 'anthropic') return anthropic(sim, { model, max_tokens: 50, stream, messages: msgs('fault please'), ...extra });
  if (proto === 'chat') return chat(sim, { model, stream, stream_options: { include_usage: true }, messages: msgs('fault please'), ...extra });
  return responses(sim, { model, stream, input: 'fault please', ...extra });
}

const STATUS: Record<string, { status: number; anthropic: string }> = {
  '429': { status: 429, anthropic: 'rate_limit_error' },
  '500': { status: 500, anthropic: 'api_error' },
  '502': { status: 502, anthropic: 'api_error' },
  '503': { status: 503, anthropic: 'api_error' },
  '529': { status: 529, anthropic: 'overloaded_error' },
  '400': { status: 400, anthropic: 'invalid_request_error' },
  '401': { status: 401, anthropic: 'authentication_error' },
};

t.test('status faults in each protocol envelope', async (t) => {
  const sim = await startSim(t);
  for (const [kind, want] of Object.entries(STATUS)) {
    const a = await send(sim, 'anthropic', `fault:${kind}`, true);
    t.equal(a.status, want.status, `anthropic ${kind}`);
    t.match(a.headers.get('content-type'), /^application\/json/);
    t.match(await a.json(), { type: 'error', error: { type: want.anthropic, message: String } });
    for (const proto of ['chat', 'responses'] as const) {
      const o = await send(sim, proto, `fault:${kind}`, false);
      t.equal(o.status, want.status, `${proto} ${kind}`);
      t.match(await o.json(), { error: { message: String, type: String } });
    }
    const tr = await transcribe(sim, { model: `fault:${kind}` });
    t.equal(tr.status, want.status, `transcription ${kind}`);
    t.match(await tr.json(), { error: { message: String } });
  }
});

t.test('429 retry-after; 400 must not be retried', async (t) => {
  const sim = await startSim(t);
  const dflt = await send(sim, 'anthropic', 'fault:429', false);
  t.equal(dflt.headers.get('retry-after'), '1');
  const seven = await send(sim, 'chat', 'fault:429;retry-after=7', false);
  t.equal(seven.headers.get('retry-after'), '7');
  t.match(await seven.json(), { error: { code: 'rate_limit_exceeded' } });
  for (const proto of PROTOS) {
    const res = await send(sim, proto, 'fault:400', false);
    t.equal(res.headers.get('x-should-retry'), 'false', `${proto} 400 says do not retry`);
    await res.arrayBuffer();
  }
  const unknown = await send(sim, 'anthropic', 'fault:nope', false);
  t.equal(unknown.status, 400);
  t.match(await unknown.json(), { error: { message: /unknown fault kind/ } });
});

t.test('slow behaves like demo after the wait', async (t) => {
  const sim = await startSim(t);
  const res = await send(sim, 'anthropic', 'fault:slow;ms=20', false);
  t.equal(res.status, 200);
  t.match(await res.json(), { content: [{ type: 'text', text: /^Hello from fault:slow;ms=20!/ }] });
});

t.test('reset-before drops the connection before any response', async (t) => {
  const sim = await startSim(t);
  for (const proto of PROTOS) await t.rejects(send(sim, proto, 'fault:reset-before', true), `${proto}`);
  await t.rejects(transcribe(sim, { model: 'fault:reset-before' }));
  t.equal(sim.requests.length, 4, 'requests were still logged');
});

t.test('reset-mid: 200 SSE headers, some events, then a reset', async (t) => {
  const sim = await startSim(t);
  for (const proto of PROTOS) {
    const res = await send(sim, proto, 'fault:reset-mid', true);
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'text/event-stream');
    const { text, error } = await readAll(res);
    t.ok(error, `${proto}: body read fails`);
    t.ok(parseSse(text).length >= 2, `${proto}: some events arrived`);
    t.notMatch(text, /message_stop|\[DONE\]|response\.completed/);
  }
  const json = await send(sim, 'anthropic', 'fault:reset-mid', false);
  t.ok((await readAll(json)).error, 'non-streaming: body cut short');
});

t.test('stall-mid: some events then silence until the client leaves', async (t) => {
  const sim = await startSim(t);
  for (const proto of PROTOS) {
    const ac = new AbortController();
    const model = 'fault:stall-mid';
    const body = proto === 'anthropic'
      ? { model, max_tokens: 50, stream: true, messages: msgs('x') }
      : proto === 'chat' ? { model, stream: true, messages: msgs('x') } : { model, stream: true, input: 'x' };
    const path = { anthropic: '/v1/messages', chat: '/v1/chat/completions', responses: '/v1/responses' }[proto];
    const headers: Record<string, string> = proto === 'anthropic'
      ? { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }
      : { authorization: 'Bearer k', 'content-type': 'application/json' };
    const res = await fetch(sim.url + path, { method: 'POST', headers, body: JSON.stringify(body), signal: ac.signal });
    t.equal(res.status, 200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const dec = new TextDecoder();
    let text = '';
    while (!/delta/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += dec.decode(value);
    }
    t.match(text, /delta/, `${proto}: received events up to a delta`);
    t.notMatch(text, /message_stop|\[DONE\]|response\.completed/);
    ac.abort();
    await reader.read().catch(() => undefined);
  }
  const after = await send(sim, 'anthropic', 'demo', false);
  t.equal(after.status, 200, 'server fine after aborted stalls');
  await after.arrayBuffer();
});

t.test('malformed-sse: an invalid JSON data line mid-stream', async (t) => {
  const sim = await startSim(t);
  for (const proto of PROTOS) {
    const events = parseSse(await (await send(sim, proto, 'fault:malformed-sse', true)).text());
    const broken = events.filter((e) => {
      if (e.data === '[DONE]') return false;
      try {
        JSON.parse(e.data);
        return false;
      } catch {
        return true;
      }
    });
    t.equal(broken.length, 1, `${proto}: one broken data line`);
    t.ok(events.indexOf(broken[0] as (typeof events)[number]) > 0, 'not the first event');
  }
  const json = await (await send(sim, 'chat', 'fault:malformed-sse', false)).text();
  t.throws(() => JSON.parse(json), 'non-streaming body is invalid JSON');
});

t.test('wrong-model', async (t) => {
  const sim = await startSim(t);
  const a = dataOf(parseSse(await (await send(sim, 'anthropic', 'fault:wrong-model', true)).text()));
  t.not((a[0]?.message as J).model, 'fault:wrong-model');
  t.equal(a.at(-1)?.type, 'message_stop', 'otherwise valid');
  const c = dataOf(parseSse(await (await send(sim, 'chat', 'fault:wrong-model', true)).text()));
  t.ok(c.every((x) => x.model !== 'fault:wrong-model'));
  const r = dataOf(parseSse(await (await send(sim, 'responses', 'fault:wrong-model', true)).text()));
  t.not((r.at(-1)?.response as J).model, 'fault:wrong-model');
  for (const proto of PROTOS) {
    const body = (await (await send(sim, proto, 'fault:wrong-model', false)).json()) as J;
    t.ok(typeof body.model === 'string' && body.model !== 'fault:wrong-model', `${proto} JSON`);
  }
});

t.test('duplicate-keys', async (t) => {
  const sim = await startSim(t);
  t.match(await (await send(sim, 'anthropic', 'fault:duplicate-keys', false)).text(), /"type":"message","type":"message"/);
  t.match(await (await send(sim, 'anthropic', 'fault:duplicate-keys', true)).text(), /"type":"message_start","type":"message_start"/);
  t.match(await (await send(sim, 'chat', 'fault:duplicate-keys', true)).text(), /"object":"chat.completion.chunk","object":"chat.completion.chunk"/);
  t.match(await (await send(sim, 'chat', 'fault:duplicate-keys', false)).text(), /"object":"chat.completion","object":"chat.completion"/);
  t.match(await (await send(sim, 'responses', 'fault:duplicate-keys', false)).text(), /"object":"response","object":"response"/);
});

t.test('non-finite usage numbers', async (t) => {
  const sim = await startSim(t);
  t.match(await (await send(sim, 'anthropic', 'fault:non-finite', true)).text(), /"usage":\{[^}]*"output_tokens":NaN/);
  t.match(await (await send(sim, 'anthropic', 'fault:non-finite', false)).text(), /"output_tokens":NaN/);
  t.match(await (await send(sim, 'chat', 'fault:non-finite', true)).text(), /"completion_tokens":NaN/);
  t.match(await (await send(sim, 'chat', 'fault:non-finite', true, { stream_options: undefined })).text(), /"completion_tokens":NaN/);
  t.match(await (await send(sim, 'responses', 'fault:non-finite', true)).text(), /"output_tokens":NaN/);
  t.match(await (await transcribe(sim, { model: 'fault:non-finite' })).text(), /"output_tokens":NaN/);
});

t.test('bad-index: a delta for a block never started', async (t) => {
  const sim = await startSim(t);
  const a = dataOf(parseSse(await (await send(sim, 'anthropic', 'fault:bad-index', true)).text()));
  const started = new Set(a.filter((d) => d.type === 'content_block_start').map((d) => d.index));
  t.ok(a.some((d) => d.type === 'content_block_delta' && !started.has(d.index)));
  const r = dataOf(parseSse(await (await send(sim, 'responses', 'fault:bad-index', true)).text()));
  const added = new Set(r.filter((d) => d.type === 'response.output_item.added').map((d) => d.output_index));
  t.ok(r.some((d) => d.type === 'response.output_text.delta' && !added.has(d.output_index)));
  t.same(r.map((d) => d.sequence_number), r.map((_, i) => i), 'sequence numbers stay consecutive');
  const c = dataOf(parseSse(await (await send(sim, 'chat', 'fault:bad-index', true)).text()));
  const orphan = c.flatMap((x) => (((x.choices as J[])[0]?.delta as J | undefined)?.tool_calls as J[] | undefined) ?? []);
  t.match(orphan, [{ index: 7 }]);
  t.notOk('id' in (orphan[0] as J), 'never started: no id/name');
});

t.test('no-stop: the stream ends cleanly without its terminal event', async (t) => {
  const sim = await startSim(t);
  const a = dataOf(parseSse(await (await send(sim, 'anthropic', 'fault:no-stop', true)).text()));
  t.equal(a.at(-1)?.type, 'message_delta');
  t.notOk(a.some((d) => d.type === 'message_stop'));
  const c = parseSse(await (await send(sim, 'chat', 'fault:no-stop', true)).text());
  t.notOk(c.some((e) => e.data === '[DONE]'));
  const r = dataOf(parseSse(await (await send(sim, 'responses', 'fault:no-stop', true)).text()));
  t.notOk(r.some((d) => d.type === 'response.completed'));
  t.match(await (await send(sim, 'anthropic', 'fault:no-stop', false)).json(), { stop_reason: null });
});

t.test('unclosed-block: a block is never stopped, the message still ends', async (t) => {
  const sim = await startSim(t);
  const a = dataOf(parseSse(await (await send(sim, 'anthropic', 'fault:unclosed-block', true)).text()));
  const started = a.filter((d) => d.type === 'content_block_start').map((d) => d.index);
  const stopped = new Set(a.filter((d) => d.type === 'content_block_stop').map((d) => d.index));
  t.ok(started.some((i) => !stopped.has(i)));
  t.equal(a.at(-1)?.type, 'message_stop');
  const r = dataOf(parseSse(await (await send(sim, 'responses', 'fault:unclosed-block', true)).text()));
  t.notOk(r.some((d) => d.type === 'response.output_item.done'));
  t.equal(r.at(-1)?.type, 'response.completed');
  const c = dataOf(parseSse(await (await send(sim, 'chat', 'fault:unclosed-block', true)).text()));
  t.notOk(c.some((x) => ((x.choices as J[])[0] as J | undefined)?.finish_reason));
});
