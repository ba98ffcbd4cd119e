// The answer check reads a stream's plain preamble frames without eventsource-parser
// (lib/providers/answer-check.ts `plainFrame`): every frame of every recorded stream, and seeded
// mutations of them, read by `plainFrame` must give what a fresh parser gives for the same piece, or
// be left to the parser; and the check's hand-off (the events it decoded, where the start ends) must
// be what the parser alone decodes, whole, byte by byte and in random chunks.
import { readdirSync, readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import t from 'tap';
import type { CanonicalEvent } from '../../lib/chunks.js';
import { upstreamDecoders, upstreamDialect } from '../../lib/dialects/index.js';
import type { Upstream } from '../../lib/notes.js';
import { answerCheck, plainFrame } from '../../lib/providers/answer-check.js';
import { fixture } from '../helpers/paths.js';
import { CHUNKINGS, chunk, prng, seedOf } from '../helpers/replay.js';

const DIRS: Record<string, Pick<Upstream, 'protocol' | 'api'>> = {
  anthropic: { protocol: 'anthropic', api: 'messages' },
  'openai-chat': { protocol: 'openai', api: 'chat' },
  'openai-responses': { protocol: 'openai', api: 'responses' },
};

const streams = Object.keys(DIRS).flatMap((dir) =>
  readdirSync(fixture('upstream', dir))
    .filter((file) => file.endsWith('.sse'))
    .map((file) => ({ dir, file, bytes: readFileSync(fixture('upstream', dir, file)) })),
);

/** what a fresh parser gives for `text`, fed at once */
function parsed(text: string): { id: string | undefined; event: string | undefined; data: string }[] {
  const got: { id: string | undefined; event: string | undefined; data: string }[] = [];
  createParser({ onEvent: (m) => got.push({ id: m.id, event: m.event, data: m.data }) }).feed(text);
  return got;
}

/** the pieces the check cuts a stream's text into: after each LF LF */
function pieces(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const blank = text.indexOf('\n\n', from);
    if (blank === -1) break;
    out.push(text.slice(from, blank + 2));
    from = blank + 2;
  }
  return out;
}

const EDITS = ['\r', ' ', '\n', 'id: 7\n', ':c\n', 'data: x\n', 'event: e\n', 'event:\n', 'retry: 1\n', '\ufeff', 'ï»¿', ':'];

function mutate(text: string, random: () => number): string {
  const at = Math.floor(random() * text.length);
  if (random() < 0.25) return text.slice(0, at) + text.slice(at + 1);
  const edit = EDITS[Math.floor(random() * EDITS.length)]!;
  // an edit at a line start half the time (where a field's name would be)
  const lineStart = random() < 0.5 ? text.lastIndexOf('\n', at - 1) + 1 : at;
  return text.slice(0, lineStart) + edit + text.slice(lineStart);
}

t.test('a plain frame is read as the parser reads it; anything else is left to the parser', async (t) => {
  let read = 0;
  let left = 0;
  let compared = 0;
  for (const { dir, file, bytes } of streams) {
    const random = prng(seedOf(`${dir}/${file}`));
    for (const piece of pieces(bytes.toString('utf8'))) {
      const variants = [piece];
      for (let k = 0; k < 12; k++) variants.push(mutate(piece, random));
      for (const text of variants) {
        // what the check hands `plainFrame`: a piece whose only LF LF is its end
        if (text.indexOf('\n\n') !== text.length - 2) continue;
        compared++;
        const frame = plainFrame(text);
        if (frame === undefined) {
          left++;
          continue;
        }
        read++;
        const want = parsed(text);
        if (want.length !== 1 || want[0]!.id !== undefined || want[0]!.event !== frame.event || want[0]!.data !== frame.data) {
          t.fail(`${dir}/${file}: ${JSON.stringify(text.slice(0, 120))} read as ${JSON.stringify(frame)}, parser: ${JSON.stringify(want)}`);
          return;
        }
      }
    }
  }
  t.ok(read > 1000 && left > 1000, `${compared} pieces: ${read} read as plain frames, ${left} left to the parser`);
  for (const text of ['event: a\n\n', 'data: a\ndata: b\n\n', 'event: a\r\ndata: b\n\n', 'id: 1\ndata: a\n\n', ':x\ndata: a\n\n', '\ndata: a\n\n', 'event: a\nevent: b\ndata: c\n\n', 'data :a\n\n'])
    t.equal(plainFrame(text), undefined, `left to the parser: ${JSON.stringify(text)}`);
  t.same(plainFrame('event:\ndata:x\n\n'), { event: undefined, data: 'x' });
  t.same(plainFrame('event:  a\ndata:  b\n\n'), { event: ' a', data: ' b' });
  t.same(plainFrame('data: \n\n'), { event: undefined, data: '' });
});

/** the events a parser alone gives, decoded by the dialect's decoder up to the first content frame */
function reference(dir: string, text: string): CanonicalEvent[] {
  const decoder = upstreamDecoders[upstreamDialect(DIRS[dir]!)!]!();
  const events: CanonicalEvent[] = [];
  let content = false;
  createParser({
    onEvent: (m) => {
      if (content) return;
      for (const ev of decoder.sse({ event: m.event, data: m.data })) {
        events.push(ev);
        if (ev.type !== 'message-start' && ev.type !== 'ping' && ev.type !== 'block-start') content = true;
      }
    },
  }).feed(text);
  return events;
}

t.test("the check's hand-off is what the parser alone decodes", async (t) => {
  let handed = 0;
  for (const { dir, file, bytes } of streams) {
    if (file.startsWith('error-')) continue;
    const want = reference(dir, bytes.toString('utf8'));
    for (const how of CHUNKINGS) {
      const check = answerCheck({ ...DIRS[dir]!, id: 'p', upstreamModel: 'm', stream: true, timing: { sentAt: 0, headersAt: 0 } })!;
      let read = 0;
      for (const c of chunk(bytes, how, seedOf(file))) {
        read += c.length;
        if (check.feed(c)) break;
      }
      const start = check.handOff();
      if (start === undefined || start.kind !== 'start') continue;
      handed++;
      t.same(start.events, want, `${dir}/${file} ${how}: the events`);
      t.ok(start.bytes <= read && bytes.subarray(0, start.bytes).toString('utf8').endsWith('\n\n'), `${dir}/${file} ${how}: ends at a frame`);
      t.same(reference(dir, bytes.subarray(0, start.bytes).toString('utf8')), want, `${dir}/${file} ${how}: the start holds them all`);
    }
  }
  t.ok(handed > 30, `${handed} starts handed off`);
});

t.test('a byte-order mark after plain frames is not stripped by the parser read after them', async (t) => {
  const check = answerCheck({ protocol: 'openai', api: 'chat', id: 'p', upstreamModel: 'm', stream: true, timing: { sentAt: 0, headersAt: 0 } })!;
  const role = 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n';
  // a plain frame, then a piece the parser reads (no LF LF) whose text starts with what the parser
  // would strip as a byte-order mark at the stream's very start: here it is part of an unknown field
  t.equal(check.feed(Buffer.from(role)), false);
  t.equal(check.feed(Buffer.from('ï»¿data: {"x":1}\n')), false, 'an unknown field, not a data line');
  t.equal(check.feed(Buffer.from('\n')), false, 'so no event: still in the preamble');
});
