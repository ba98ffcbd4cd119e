// Through the Responses decoder and the decode chain (whole, byte by byte and in random chunks), a
// stream whose created frame has instructions and tools texts an earlier created frame had
// (remembered: echoed-texts.ts) decodes to the same events (native frames, their objects and kept
// spans included) and errors with those texts remembered as with none. The frame-level checks are in
// echoed-texts.test.ts.
import t from 'tap';
import type { CanonicalEvent } from '../../../lib/chunks.js';
import { EchoedRequest } from '../../../lib/dialects/openai-responses/echoed-request.js';
import { responsesDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { sameJson } from '../../json/json-assert.js';
import { prng } from '../../json/json-gen.js';
import { CHUNKINGS, chunk } from '../../helpers/replay.js';
import { decodeChunks } from './harness.js';
import { forget, mutate, STREAMS, type Frame } from './echo-streams.js';

const eventsText = (events: CanonicalEvent[]): string => JSON.stringify(events);

function decodeFrames(frames: Frame[]): { events: CanonicalEvent[]; error: string | null } {
  const decoder = responsesDecoder();
  const events: CanonicalEvent[] = [];
  try {
    for (const [event, data] of frames) events.push(...decoder.sse({ event, data }));
  } catch (err) {
    return { events, error: String(err) };
  }
  return { events, error: null };
}

const byName = new Map(STREAMS.map((s) => [s.name, s]));

t.test('through the decoder: the same events and errors with texts remembered as with none', async (t) => {
  const rand = prng(0x13c1);
  let compared = 0;
  let known = 0;
  let errors = 0;
  for (const s of STREAMS) {
    const variants = [s.frames];
    // a mutated created frame, and one with the stream's type or sequence number wrong
    const at = s.frames.findIndex(([event]) => event === 'response.created');
    for (let i = 0; i < 12; i++) variants.push(s.frames.map((f, k): Frame => (k === at ? [f[0], mutate(f[1], rand)] : f)));
    variants.push(s.frames.map((f, k): Frame => (k === at ? ['response.in_progress', f[1]] : f)));
    for (const frames of variants) {
      forget();
      const strictRun = decodeFrames(frames);
      // remembered from the unmutated stream, as a later request of the same agent, and from the
      // same instructions echoed with tools (a created frame without them is in its layout: its
      // instructions then compared before the layout is tried)
      decodeFrames(s.frames.slice(at, at + 1));
      const sibling = byName.get(`${s.name.replace(/ with (spaced )?tools$/, '')} with tools`);
      if (sibling !== undefined) decodeFrames([sibling.frames.find(([event]) => event === 'response.created')!]);
      if (new EchoedRequest().createdKnown('response.created', frames[at]![1]) !== null) known++;
      const knownRun = decodeFrames(frames);
      compared++;
      if (strictRun.error !== knownRun.error) t.fail(`${s.name}: error ${knownRun.error} against ${strictRun.error}`);
      if (strictRun.error !== null) errors++;
      if (eventsText(knownRun.events) !== eventsText(strictRun.events)) t.fail(`${s.name}: other events`);
      for (const ev of knownRun.events) if (ev.native !== undefined && !sameJson(ev.native.parsed, parseStrict(ev.native.data))) t.fail(`${s.name}: ${ev.native.event} decoded to another object`);
    }
  }
  forget();
  t.ok(known > 200, `${known} of ${compared} streams had their created frame read with remembered texts`);
  t.ok(errors > 50, `${errors} refused alike`);
});

t.test('through the decode chain, whole, byte by byte and in random chunks: the same events', async (t) => {
  // (spaced tools hold raw newlines: no SSE data line)
  const picks = STREAMS.filter((s) => /(Codex-sized|escapes) instructions with tools$/.test(s.name));
  t.ok(picks.length >= 8, `${picks.length} streams`);
  for (const s of picks) {
    const bytes = Buffer.from(s.frames.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`).join(''));
    forget();
    const want = eventsText(decodeChunks([bytes], 'sse'));
    for (const how of CHUNKINGS) {
      for (const seed of how === 'random' ? [1, 2, 3] : [1]) {
        // remembered from a previous stream of the same agent
        const got = eventsText(decodeChunks(chunk(bytes, how, seed), 'sse'));
        if (got !== want) t.fail(`${s.name}: ${how} (seed ${seed})`);
      }
    }
  }
  forget();
});

