// The simulated provider's faults after the 200 head and before any content (lib/sim/head-faults.ts),
// on each text protocol, streamed and not.
import t from 'tap';
import type { SimProvider } from '../../lib/sim/server.js';
import { anthropic, chat, msgs, parseSse, readAll, responses, startSim } from './util.js';

type Proto = 'anthropic' | 'chat' | 'responses';
const PROTOS: Proto[] = ['anthropic', 'chat', 'responses'];

function send(sim: SimProvider, proto: Proto, model: string, stream: boolean): Promise<Response> {
  if (proto === 'anthropic') return anthropic(sim, { model, max_tokens: 50, stream, messages: msgs('fault please') });
  if (proto === 'chat') return chat(sim, { model, stream, stream_options: { include_usage: true }, messages: msgs('fault please') });
  return responses(sim, { model, stream, input: 'fault please' });
}

/** a frame carrying generated text, per protocol (chat's role chunk has `"content":""`) */
const CONTENT: Record<Proto, RegExp> = { anthropic: /content_block_delta/, chat: /"content":"[^"]/, responses: /output_text\.delta/ };
const START: Record<Proto, RegExp> = { anthropic: /message_start/, chat: /"role":"assistant"/, responses: /response\.created/ };

/** What arrives within `ms`, then the connection is dropped by the client. */
async function readFor(res: Response, ms: number): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let text = '';
  const until = Date.now() + ms;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) break;
    const r = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), left))]);
    if (r === null || r.done) break;
    text += dec.decode(r.value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

t.test('streams: the head, then nothing, the preamble, or a broken first frame', async (t) => {
  const sim = await startSim(t);
  for (const proto of PROTOS) {
    const resetHead = await send(sim, proto, 'fault:reset-head', true);
    t.equal(resetHead.status, 200, `${proto} reset-head: a 200 head`);
    const cut = await readAll(resetHead);
    t.ok(cut.error, `${proto} reset-head: the body fails`);
    t.equal(cut.text, '', `${proto} reset-head: no byte`);

    t.equal(await readFor(await send(sim, proto, 'fault:stall-head', true), 150), '', `${proto} stall-head: silence`);

    const stalled = await readFor(await send(sim, proto, 'fault:stall-preamble', true), 150);
    t.match(stalled, START[proto], `${proto} stall-preamble: the preamble`);
    t.notMatch(stalled, CONTENT[proto], `${proto} stall-preamble: no content`);

    const reset = await readAll(await send(sim, proto, 'fault:reset-preamble', true));
    t.ok(reset.error, `${proto} reset-preamble: the body fails`);
    t.match(reset.text, START[proto]);
    t.notMatch(reset.text, CONTENT[proto], `${proto} reset-preamble: no content`);

    const ended = await readAll(await send(sim, proto, 'fault:end-preamble', true));
    t.notOk(ended.error, `${proto} end-preamble: a clean end`);
    t.match(ended.text, START[proto]);
    t.notMatch(ended.text, CONTENT[proto], `${proto} end-preamble: no content`);

    const malformed = parseSse((await readAll(await send(sim, proto, 'fault:malformed-first', true))).text);
    t.throws(() => JSON.parse(malformed[0]!.data), `${proto} malformed-first: the first frame is broken`);
    t.doesNotThrow(() => JSON.parse(malformed[1]!.data), `${proto} malformed-first: the next one is not`);

    const early = (await readAll(await send(sim, proto, 'fault:error-preamble', true))).text;
    t.notMatch(early, CONTENT[proto], `${proto} error-preamble: no content`);
    t.match(parseSse(early).at(-1)?.data, /Overloaded/, `${proto} error-preamble: ends with the in-band error`);

    const late = (await readAll(await send(sim, proto, 'fault:error-mid', true))).text;
    t.match(late, CONTENT[proto], `${proto} error-mid: content first`);
    t.match(parseSse(late).at(-1)?.data, /Overloaded/, `${proto} error-mid: then the in-band error`);
  }
});

t.test('JSON answers: the head, then nothing, half the body, a body cut short, or an error body', async (t) => {
  const sim = await startSim(t);
  for (const proto of PROTOS) {
    const whole = await (await send(sim, proto, 'demo', false)).text();
    const resetHead = await readAll(await send(sim, proto, 'fault:reset-head', false));
    t.ok(resetHead.error, `${proto} reset-head: the body fails`);
    t.equal(resetHead.text, '');
    t.equal(await readFor(await send(sim, proto, 'fault:stall-head', false), 150), '', `${proto} stall-head: silence`);
    const half = await readFor(await send(sim, proto, 'fault:stall-preamble', false), 150);
    t.ok(half.length > 0 && half.length < whole.length, `${proto} stall-preamble: part of the body`);
    const reset = await readAll(await send(sim, proto, 'fault:reset-preamble', false));
    t.ok(reset.error && reset.text.length > 0, `${proto} reset-preamble: part of the body, then a reset`);
    const ended = await readAll(await send(sim, proto, 'fault:end-preamble', false));
    t.notOk(ended.error, `${proto} end-preamble: a clean end`);
    t.throws(() => JSON.parse(ended.text), `${proto} end-preamble: a body cut mid-way`);
    const malformed = await (await send(sim, proto, 'fault:malformed-first', false)).text();
    t.throws(() => JSON.parse(malformed), `${proto} malformed-first: a body cut short`);
    const error = await send(sim, proto, 'fault:error-preamble', false);
    t.equal(error.status, 200, `${proto} error-preamble: 200`);
    t.match(await error.json(), { error: { message: 'Overloaded' } }, `${proto} error-preamble: an error body`);
  }
});
