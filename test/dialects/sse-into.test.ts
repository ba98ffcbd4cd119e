// A decoder's `sseInto` (the events pushed onto provider-decode's array, with no array of their own
// for the common text frame) must give exactly what `sse` gives: the same events, the same state
// after them and the same errors, frame after frame. Checked over every recorded Anthropic and Chat
// stream, as recorded and with seeded mutations of some frames (near misses of the recognised
// layouts, which take the general path, and malformed frames, which fail).
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import type { DialectName } from '../../lib/chunks.js';
import { upstreamDecoders } from '../../lib/dialects/index.js';
import { prng } from '../json/json-gen.js';
import { fixture } from '../helpers/paths.js';

interface Msg {
  event: string | undefined;
  data: string;
}

/** the messages of a recorded stream (blank-line separated `event:` / `data:` lines) */
function messages(text: string): Msg[] {
  const out: Msg[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split('\n\n')) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    if (data.length > 0) out.push({ event, data: data.join('\n') });
  }
  return out;
}

const INSERTS = [' ', '"', '\\', '0', '9', ',', '{', '}', 'n', 'é', 'x'];

function mutate(data: string, rand: () => number): string {
  const at = Math.floor(rand() * data.length);
  const c = INSERTS[Math.floor(rand() * INSERTS.length)]!;
  const r = rand();
  if (r < 0.33) return data.slice(0, at) + data.slice(at + 1);
  if (r < 0.66) return data.slice(0, at) + c + data.slice(at);
  return data.slice(0, at) + c + data.slice(at + 1);
}

/** what one call gave: its events (natives included) or its error */
function outcome(call: () => unknown[]): string {
  try {
    return JSON.stringify(call());
  } catch (err) {
    return `throws ${(err as Error).message}`;
  }
}

for (const dialect of ['anthropic', 'openai-chat'] as DialectName[]) {
  t.test(`${dialect}: sseInto gives what sse gives, frame after frame`, async (t) => {
    const dir = fixture('upstream', dialect);
    const streams = readdirSync(dir).filter((f) => f.endsWith('.sse')).map((f) => messages(readFileSync(`${dir}/${f}`, 'utf8')));
    const rand = prng(21);
    let frames = 0;
    let failures = 0;
    for (const stream of streams) {
      for (let round = 0; round < 16; round++) {
        const viaSse = upstreamDecoders[dialect]!();
        const viaInto = upstreamDecoders[dialect]!();
        t.ok(viaInto.sseInto !== undefined, 'the decoder has sseInto');
        for (const msg of stream) {
          // round 0 as recorded; later rounds mutate about one frame in eight
          const m = round > 0 && rand() < 0.125 ? { event: msg.event, data: mutate(msg.data, rand) } : msg;
          const a = outcome(() => viaSse.sse(m));
          const b = outcome(() => {
            const out: unknown[] = [];
            viaInto.sseInto!(m, out);
            return out;
          });
          frames++;
          if (a !== b && failures++ < 5) t.fail(`sse ${a.slice(0, 400)} vs sseInto ${b.slice(0, 400)}: ${m.data}`);
          if (a.startsWith('throws')) break;
        }
        const endA = outcome(() => viaSse.end?.() ?? []);
        const endB = outcome(() => viaInto.end?.() ?? []);
        if (endA !== endB && failures++ < 5) t.fail(`end: ${endA} vs ${endB}`);
      }
    }
    t.equal(failures, 0, 'no disagreement');
    t.ok(frames > 900, `${frames} frames compared`);
  });
}
