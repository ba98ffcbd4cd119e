// The native stream decoders' fast paths (a Chat content frame and a Messages text delta recognised
// by their layout, their object built only when read) are exactly as strict as the strict parser,
// over whole streams: every recorded Chat and Messages stream (fixtures/upstream) and the bench's,
// as recorded and with seeded mutations of one frame (a character deleted, inserted or replaced, a
// text rewritten with escapes, quotes and control characters), whole, byte by byte and in random
// chunks, through sse-decode → provider-decode → integrity. Each is compared with the same stream
// whose frames all take the strict parser (a space before each frame's JSON, which no recogniser
// accepts): the same events, the same `through` marks (what a same-dialect client gets as it came),
// the same failure; and every frame's object, built when read, is the strict parser's.
import t from 'tap';
import type { CanonicalEvent, DialectName } from '../../lib/chunks.js';
import { TextDeltaChunk } from '../../lib/dialects/anthropic/text-delta.js';
import { ContentChunk } from '../../lib/dialects/openai-chat/chunk-layout.js';
import { GatewayError } from '../../lib/errors.js';
import { parseStrict } from '../../lib/json/strict-parse.js';
import { eventToJson, offlineContext } from '../../lib/offline-context.js';
import { sameJson } from '../json/json-assert.js';
import { chunk, decodeStages, prng, runSync, type Chunking } from '../helpers/replay.js';
import { bench, edges, mutate, recorded, sse, type Dialect } from './fast-path-frames.js';

interface Run {
  events: string;
  through: string;
  error: string | null;
  /** frames recognised by a fast path */
  fast: number;
  /** frames whose object differs from the strict parser's */
  wrong: string[];
}

function run(bytes: Buffer, dialect: Dialect, how: Chunking, seed: number): Run {
  const ctx = offlineContext({ reqId: 'req_fast', dialect: dialect as DialectName });
  const events: CanonicalEvent[] = [];
  let error: string | null = null;
  try {
    for (const item of runSync<CanonicalEvent>(decodeStages({ from: dialect }), chunk(bytes, how, seed), ctx)) events.push(item);
  } catch (err) {
    if (!GatewayError.is(err)) throw err;
    // the strict parser's offsets move with the space the strict stream adds
    error = `${err.code} ${err.message.replace(/\d+/g, '#')}`;
  }
  let fast = 0;
  const wrong: string[] = [];
  for (const ev of events) {
    const native = ev.native;
    if (native === undefined || native.event === 'done') continue;
    if (native instanceof ContentChunk || native instanceof TextDeltaChunk) fast++;
    let strict: unknown;
    try {
      strict = parseStrict(native.data);
    } catch {
      strict = undefined; // a recognised frame the strict parser refuses
    }
    if (!sameJson(native.parsed, strict)) wrong.push(native.data);
  }
  return { events: JSON.stringify(events.map(eventToJson)), through: events.map((ev) => ev.native?.through ?? '-').join(','), error, fast, wrong };
}

for (const dialect of ['openai-chat', 'anthropic'] as const) {
  t.test(`${dialect}: the fast paths decide as the strict parser, over whole streams`, async (t) => {
    const rand = prng(dialect === 'anthropic' ? 11 : 13);
    let fast = 0;
    let failed = 0;
    let compared = 0;
    let refused = 0;
    for (const [name, list] of [...recorded(dialect), bench(dialect)]) {
      const variants = [list, ...edges(list), ...Array.from({ length: 40 }, () => mutate(list, rand))];
      variants.forEach((variant, k) => {
        const hows: Chunking[] = k < 16 ? ['whole', 'bytes', 'random'] : ['whole', 'random'];
        for (const how of hows) {
          const seed = Math.floor(rand() * 1e9);
          const got = run(sse(variant, false), dialect, how, seed);
          const want = run(sse(variant, true), dialect, how, seed);
          compared++;
          fast += got.fast;
          if (want.fast !== 0) t.fail(`${name}: the strict stream took a fast path`);
          if (want.error !== null) refused++;
          const diff =
            got.error !== want.error ? `failure ${String(got.error)} vs ${String(want.error)}` :
            got.events !== want.events ? 'different events' :
            got.through !== want.through ? `through marks ${got.through} vs ${want.through}` :
            got.wrong.length > 0 ? `an object unlike the strict parser's: ${got.wrong[0]!.slice(0, 120)}` : '';
          if (diff !== '' && failed++ < 10) t.fail(`${name}, variant ${k}, ${how}: ${diff}`);
        }
      });
    }
    t.equal(failed, 0, `${compared} runs agree with the strict parser`);
    t.ok(fast > 300, `the fast paths were taken (${fast} frames)`);
    t.ok(refused > 100, `and mutations were refused (${refused} runs)`);
  });
}
