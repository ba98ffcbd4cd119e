// Responses → Responses: a message's final frames (output_text.done, content_part.done,
// output_item.done and the output of response.completed) are written with the upstream's text bytes
// (its output_item.done, recognised by layout) instead of serialising the accumulated text again, and
// byte for byte as the full encoder writes them: every recorded Responses stream gives the very same
// text on both paths. An escape the serialiser would never write shows which bytes went through; an
// upstream whose done item disagrees with the streamed text gets the encoder's frames. The Response
// events, written in parts (the request's members serialised once a response), are JSON.stringify's
// text of the Response object.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import type { CanonicalEvent, NativeFrame } from '../../lib/chunks.js';
import { jsonEncoders, sseEncoders } from '../../lib/dialects/index.js';
import { ResponseWriter } from '../../lib/dialects/openai-responses/client-encode-writer.js';
import { EncoderState } from '../../lib/encoder-input.js';
import { replay, type ReplayOptions } from '../../lib/replay/index.js';
import { servedRequest } from '../../lib/replay/served.js';
import { offlineContext } from '../../lib/offline-context.js';
import { runSync } from '../helpers/replay.js';
import { fixture } from '../helpers/paths.js';

const served: ReplayOptions['served'] = { modelId: 'openai/served-model', pricing: { input: 1.25, output: 10, cacheRead: 0.125 } };
const TEXT = readFileSync(fixture('upstream', 'openai-responses', 'text.sse'), 'utf8');

/** text.sse with the done item's text replaced (the deltas, output_text.done and response.completed untouched) */
function withDoneText(text: string): Buffer {
  return Buffer.from(TEXT.split('\n').map((l) => (l.includes('"type":"response.output_item.done"') ? l.replace('"text":"4200 + 42 equals 4242."', `"text":${text}`) : l)).join('\n'));
}

const frame = (text: string, type: string): string => text.split('\n\n').find((f) => f.startsWith(`event: ${type}\n`)) ?? '';

t.test('every recorded Responses stream: the same bytes as the full encoder writes', async (t) => {
  for (const name of readdirSync(fixture('upstream', 'openai-responses')).filter((f) => f.endsWith('.sse')).sort()) {
    const bytes = readFileSync(fixture('upstream', 'openai-responses', name));
    for (const chunks of [undefined, 1, 'random'] as const) {
      const native = replay(bytes, { chunks, seed: 5, served });
      const old = replay(bytes, { chunks, seed: 5, served, reencode: true });
      t.equal(native.text, old.text, `${name} (${chunks ?? 'whole'})`);
    }
  }
});

t.test('the final frames keep the upstream\'s text bytes', async (t) => {
  const escaped = '"\\u0034200 + 42 equals 4242."';
  const native = replay(withDoneText(escaped), { served }).text;
  for (const type of ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']) {
    t.match(frame(native, type), `"text":${escaped}`, `${type}: the upstream's bytes`);
  }
  t.notMatch(frame(native, 'response.output_item.done'), '"id":"msg_0360', 'under the gateway\'s item id');
  const old = replay(withDoneText(escaped), { served, reencode: true }).text;
  t.notMatch(old, '\\u0034200', 're-encoded on the old path');
  const parsed = (text: string): unknown[] => text.split('\n\n').filter((f) => f.includes('data: ')).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as unknown);
  t.same(parsed(native), parsed(old), 'the same JSON on both paths');
});

t.test('a done item whose text is not the streamed text: the encoder\'s frames', async (t) => {
  const native = replay(withDoneText('"something else"'), { served }).text;
  t.notMatch(native, 'something else', 'the done item\'s text is not written');
  t.equal(native, replay(withDoneText('"something else"'), { served, reencode: true }).text, 'the encoder wrote them');
});

t.test('the Response events are the serialisation of the Response object, members in its order', async (t) => {
  const { routed, catalog } = servedRequest({ modelId: 'openai/served-model', pricing: { input: 1.25, output: 10 } }, { dialect: 'openai-responses', model: 'served-model', stream: true });
  routed.request.body = {
    model: 'served-model', input: 'hi', instructions: 'Be "brief" \u2028 😀', max_output_tokens: 64, temperature: 0.5, top_p: 0.9,
    text: { verbosity: 'low' }, tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }], tool_choice: 'none', metadata: { k: 'v' }, user: 'u1',
  };
  const run = Object.assign((native: boolean): string => {
    const enc = sseEncoders['openai-responses']!({ clientModel: 'served-model', requestId: 'req_order1', input: new EncoderState('req_order1', catalog, routed) });
    const text = 'Bonjour "à" vous';
    const before = '{"item":{"content":[{"text":';
    const done: NativeFrame = {
      dialect: 'openai-responses', event: 'response.output_item.done', data: `${before}${JSON.stringify(text)}}]}}`,
      parsed: { item: { content: [{ text }] } },
      ...(native ? { through: 'frame' as const, kept: [before.length, before.length + JSON.stringify(text).length] as [number, number] } : {}),
    };
    const events: CanonicalEvent[] = [
      { type: 'message-start', id: 'up', model: 'up-model', usage: { input: 9, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 } },
      { type: 'block-start', index: 0, block: { kind: 'text', text: '' } },
      { type: 'text-delta', index: 0, text },
      { type: 'block-stop', index: 0, native: done },
      { type: 'message-delta', stop: { kind: 'end' }, usage: { output: 3 } },
      { type: 'message-stop' },
    ];
    run.events = events;
    return events.map((ev) => enc.encode(ev)).join('');
  }, { events: [] as CanonicalEvent[] });
  const now = Date.now;
  Date.now = () => 1_767_225_600_000; // the clock the Response stamps, the same for every run
  t.teardown(() => {
    Date.now = now;
  });
  const native = run(true);
  t.equal(native, run(false), 'with or without the upstream\'s text bytes: the same text');
  const datas = native.split('\n\n').filter((f) => f !== '').map((f) => f.slice(f.indexOf('data: ') + 6));
  for (const data of datas) t.equal(JSON.stringify(JSON.parse(data)), data, `${data.slice(0, 48)}…: JSON.stringify's text`);
  const completed = JSON.parse(datas.at(-1)!) as { response: Record<string, unknown> };
  const order = Object.keys(new ResponseWriter(new EncoderState('req_order1', catalog, routed), 'req_order1', true).response('completed', null, { gateway: true }));
  t.same(Object.keys(completed.response), order, 'the members in the Response object\'s order');
  const events = run.events;
  const body = runSync<string>([jsonEncoders['openai-responses']!(new EncoderState('req_order1', catalog, routed), { clientModel: 'served-model' })], events, offlineContext({ reqId: 'req_order1', dialect: 'openai-responses' }));
  t.equal(JSON.stringify(completed.response), body[0], 'the JSON encoder\'s Response (JSON.stringify of the object), byte for byte');
  t.match(completed.response, { instructions: 'Be "brief" \u2028 😀', tools: [{ name: 'f', strict: false }], metadata: { k: 'v' }, output: [{ content: [{ text: 'Bonjour "à" vous' }] }] });
});
