// sse-decode's reading of the providers' own frame form without the parser (lib/sse-frames.ts)
// against eventsource-parser alone, fed the same text: every recorded SSE body (fixtures/ and
// ../shared/fixtures/), whole, a frame a chunk, byte by byte and in random chunks, and the same bodies
// with seeded mutations at frame boundaries (CR line ends, comments, `id:` and `retry:` lines, an
// empty or space-less event name, several data lines, a BOM, blank lines, a cut-off end, frames
// over the size bound) give the same messages, and fail the same way.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import t from 'tap';
import type { UpstreamMessage } from '../../lib/chunks.js';
import { offlineContext } from '../../lib/offline-context.js';
import { chunkBytes, prng } from '../../lib/replay/chunking.js';
import { scanFrames } from '../../lib/sse-frames.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { seedOf } from '../helpers/replay.js';

const ctx = offlineContext({ reqId: 'req_sse_frames' });

/** What sse-decode gave before lib/sse-frames.ts: the parser fed each chunk's text (UTF-8, streamed). */
function reference(chunks: Buffer[], maxEventSize: number): UpstreamMessage[] | string {
  const out: UpstreamMessage[] = [];
  let overflow = false;
  const parser = createParser({
    maxBufferSize: maxEventSize,
    onEvent(m) {
      if (m.data.length > maxEventSize) overflow = true;
      else out.push({ kind: 'sse', event: m.event, data: m.data });
    },
    onError(err) {
      if (err.type === 'max-buffer-size-exceeded') overflow = true;
    },
  });
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let endsInCr = false;
  const feed = (text: string): void => {
    if (text === '') return;
    parser.feed(text);
    endsInCr = text.charCodeAt(text.length - 1) === 0x0d;
  };
  try {
    for (const c of chunks) {
      feed(utf8.decode(c, { stream: true }));
      if (overflow) return 'overflow';
    }
    let last = utf8.decode();
    if (endsInCr) last += '\n';
    feed(last);
  } catch {
    return 'utf8';
  }
  return overflow ? 'overflow' : out;
}

function decoded(chunks: Buffer[], maxEventSize: number): UpstreamMessage[] | string {
  const stage = sseDecode({ mode: () => 'sse', maxEventSize });
  const out: UpstreamMessage[] = [];
  try {
    for (const c of chunks) for (const m of (stage.step(c, ctx) ?? []) as UpstreamMessage[]) out.push(m);
    for (const m of (stage.flush!(ctx) ?? []) as UpstreamMessage[]) out.push(m);
  } catch (err) {
    const message = (err as Error).message;
    return /maximum size/.test(message) ? 'overflow' : /UTF-8/.test(message) ? 'utf8' : message;
  }
  return out;
}

/** The recorded SSE bodies, from this repository's fixtures and the shared ones. */
function bodies(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const root of [FIXTURES, join(ROOT, '..', 'shared', 'fixtures')]) {
    const upstream = join(root, 'upstream');
    if (!existsSync(upstream)) continue;
    for (const dir of readdirSync(upstream).sort()) {
      if (!existsSync(join(upstream, dir)) || dir.includes('.')) continue;
      for (const f of readdirSync(join(upstream, dir)).sort()) {
        if (f.endsWith('.sse')) out.push({ name: `${root === FIXTURES ? '' : 'shared:'}${dir}/${f}`, text: readFileSync(join(upstream, dir, f), 'utf8') });
      }
    }
  }
  return out;
}

/** What a mutation puts at a frame boundary, or does to the frame after it. */
const MUTATIONS: ((frame: string) => string)[] = [
  (f) => f.replace(/\n/g, '\r\n'),
  (f) => `: keep-alive\n\n${f}`,
  (f) => `id: 7\n${f}`,
  (f) => `retry: 10\n${f}`,
  (f) => `event: \n${f.replace(/^event: [^\n]*\n/, '')}`,
  (f) => f.replace(/^event: /, 'event:'),
  (f) => f.replace(/^data: /m, 'data:'),
  (f) => f.replace(/^data: /m, 'data:  '),
  (f) => f.replace(/\n\n$/, '\ndata: more\n\n'),
  (f) => `\n\n${f}`,
  (f) => `event: orphan\n\n${f}`,
  (f) => f.replace(/\n\n$/, '\n'),
  (f) => `data: \n\n${f}`,
  (f) => `\ufeff${f}`,
  (f) => f.replace(/\n\n$/, '\r\n\r\n'),
  (f) => f.replace(/^data: /m, 'data: ' + 'x'.repeat(300)),
];

/** `text` with a few seeded mutations at frame boundaries. */
function mutate(text: string, seed: number): string {
  const random = prng(seed);
  const frames = text.split(/(?<=\n\n)/);
  for (let n = 0; n < 3; n++) {
    const at = Math.floor(random() * frames.length);
    frames[at] = MUTATIONS[Math.floor(random() * MUTATIONS.length)]!(frames[at]!);
  }
  if (random() < 0.2) frames.unshift('\ufeff');
  return frames.join('');
}

/** whole, a frame a chunk, several frames a chunk, byte by byte, random */
function chunkings(text: string, seed: number): [string, Buffer[]][] {
  const bytes = Buffer.from(text);
  const frames = text.split(/(?<=\n\n)/).map((f) => Buffer.from(f));
  const pairs: Buffer[] = [];
  for (let i = 0; i < frames.length; i += 3) pairs.push(Buffer.concat(frames.slice(i, i + 3)));
  return [
    ['whole', [bytes]],
    ['frames', frames],
    ['three frames', pairs],
    ['bytes', chunkBytes(bytes, 1, seed)],
    [`random #${seed}`, chunkBytes(bytes, 'random', seed)],
    [`random #${seed + 1}`, chunkBytes(bytes, 'random', seed + 1)],
  ];
}

t.test('every recorded SSE body, as recorded and mutated, in every chunking: the messages the parser alone gives', async (t) => {
  let compared = 0;
  for (const { name, text } of bodies()) {
    const seed = seedOf(name);
    const variants: [string, string][] = [[name, text], ...[0, 1, 2, 3].map((k): [string, string] => [`${name} mutated #${seed + k}`, mutate(text, seed + k)])];
    for (const [label, body] of variants) {
      for (const [how, chunks] of chunkings(body, seed)) {
        for (const max of [16 * 1024 * 1024, 256]) {
          const want = reference(chunks, max);
          const got = decoded(chunks, max);
          if (JSON.stringify(got) !== JSON.stringify(want)) t.same(got, want, `${label}, ${how}, max ${max}`);
          compared++;
        }
      }
    }
  }
  t.ok(compared > 500, `${compared} feedings compared`);
});

t.test('scanFrames: the form it reads, and where it stops', async (t) => {
  const read = (text: string, max = 100): [number, UpstreamMessage[]] => {
    const out: UpstreamMessage[] = [];
    return [scanFrames(text, out, max), out];
  };
  t.same(read('data: {"a":1}\n\nevent: ping\ndata: {}\n\n'), [37, [{ kind: 'sse', event: undefined, data: '{"a":1}' }, { kind: 'sse', event: 'ping', data: '{}' }]]);
  t.same(read('data: a\n\ndata: b\n'), [9, [{ kind: 'sse', event: undefined, data: 'a' }]], 'a frame without its blank line is left');
  t.same(read('data: a\n\r\n'), [0, []], 'a text with a CR is left whole');
  t.same(read('event: \ndata: a\n\n'), [0, []], 'an empty event name is left');
  t.same(read('data: a\ndata: b\n\n'), [0, []], 'two data lines are left');
  t.same(read(': c\n\ndata: a\n\n'), [0, []], 'a comment is left');
  t.same(read('data: \n\n'), [8, [{ kind: 'sse', event: undefined, data: '' }]], 'empty data is a message');
  t.equal(read('data: 0123456789\n\n', 5)[0], -1, 'data over the bound');
  const [, [m]] = read('event: content_block_delta\ndata: {}\n\n');
  t.equal((m as { event: string }).event, 'content_block_delta');
});
