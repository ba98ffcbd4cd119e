// Responses → Responses: a message's final frames (output_text.done, content_part.done,
// output_item.done and the output of response.completed) are written with the upstream's text bytes
// (its output_item.done, recognised by layout) instead of serialising the accumulated text again, and
// byte for byte as the full encoder writes them: every recorded Responses stream gives the very same
// text on both paths. An escape the serialiser would never write shows which bytes went through; an
// upstream whose done item disagrees with the streamed text gets the encoder's frames.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { replay, type ReplayOptions } from '../../lib/replay/index.js';
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
