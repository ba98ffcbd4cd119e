// The answer check that holds a 2xx answer back until it began well (lib/providers/answer-check.ts),
// on every recorded provider answer, fed whole, byte by byte and in seeded-random chunks: a real
// stream is released at its first content frame (never later, never failed), a real JSON answer
// passes, and the same answers cut short, or failing in-band before any content, are failures.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { GatewayError } from '../../lib/errors.js';
import type { Upstream } from '../../lib/notes.js';
import { answerCheck, type AnswerCheck } from '../../lib/providers/answer-check.js';
import { fixture } from '../helpers/paths.js';
import { CHUNKINGS, chunk, seedOf } from '../helpers/replay.js';

const DIRS: Record<string, Pick<Upstream, 'protocol' | 'api'>> = {
  anthropic: { protocol: 'anthropic', api: 'messages' },
  'openai-chat': { protocol: 'openai', api: 'chat' },
  'openai-responses': { protocol: 'openai', api: 'responses' },
};
/** a recorded stream that fails in-band before any content (insufficient_quota: a 429) */
const FAILS_EARLY = 'error-insufficient-quota.sse';

function checkFor(dir: string, stream: boolean): AnswerCheck {
  const check = answerCheck({ ...DIRS[dir]!, id: 'p', upstreamModel: 'm', stream, timing: { sentAt: 0, headersAt: 0 } });
  if (check === undefined) throw new Error(`no check for ${dir}`);
  return check;
}

/** Feed `chunks` until the check releases the answer: how many bytes were held (-1: never released). */
function heldUntilRelease(check: AnswerCheck, chunks: Buffer[]): number {
  let held = 0;
  for (const c of chunks) {
    held += c.length;
    if (check.feed(c)) return held;
  }
  check.end();
  return -1;
}

const cases = Object.keys(DIRS).flatMap((dir) => readdirSync(fixture('upstream', dir)).map((file) => ({ dir, file, bytes: readFileSync(fixture('upstream', dir, file)) })));

t.test('every recorded stream is released at its first content frame', async (t) => {
  const streams = cases.filter((c) => c.file.endsWith('.sse') && c.file !== FAILS_EARLY);
  t.ok(streams.length >= 25, `${streams.length} recorded streams`);
  for (const { dir, file, bytes } of streams) {
    const byByte = heldUntilRelease(checkFor(dir, true), chunk(bytes, 'bytes'));
    t.ok(byByte > 0 && byByte < bytes.length, `${dir}/${file}: released before its end (${byByte} of ${bytes.length} bytes)`);
    const held = bytes.subarray(0, byByte).toString('utf8');
    t.match(held, /\n\r?\n$/, `${dir}/${file}: at a frame boundary`);
    t.throws(() => heldUntilRelease(checkFor(dir, true), [bytes.subarray(0, byByte - 2)]), { code: 'GW_ERR_INTEGRITY' }, `${dir}/${file}: its preamble alone is not an answer`);
    for (const how of CHUNKINGS) {
      const at = heldUntilRelease(checkFor(dir, true), chunk(bytes, how, seedOf(file)));
      t.ok(at >= byByte, `${dir}/${file} ${how}: released with the first content frame`);
    }
  }
});

t.test('a recorded in-band failure before any content is a failure to move on from', async (t) => {
  const bytes = readFileSync(fixture('upstream', 'openai-responses', FAILS_EARLY));
  for (const how of CHUNKINGS) {
    let err: unknown;
    try {
      heldUntilRelease(checkFor('openai-responses', true), chunk(bytes, how, 7));
    } catch (e) {
      err = e;
    }
    t.ok(GatewayError.is(err), `${how}: thrown`);
    t.match((err as GatewayError).upstream, { status: 429, type: 'insufficient_quota' }, `${how}: the provider's own error`);
  }
});

t.test('every recorded JSON answer passes whole, and fails cut short', async (t) => {
  const answers = cases.filter((c) => c.file.endsWith('.json'));
  t.ok(answers.length >= 15, `${answers.length} recorded JSON answers`);
  for (const { dir, file, bytes } of answers) {
    const check = checkFor(dir, false);
    t.equal(heldUntilRelease(check, chunk(bytes, 'random', seedOf(file))), -1, `${dir}/${file}: read to its end`);
    t.throws(() => heldUntilRelease(checkFor(dir, false), [bytes.subarray(0, bytes.length >> 1)]), { code: 'GW_ERR_INTEGRITY' }, `${dir}/${file}: half of it fails`);
  }
});

t.test('the rest of the chunk that brings the first content frame is held too: not UTF-8 there is a failure', async (t) => {
  // the check reads the chunk only up to its first content frame, and validates the rest as the
  // streaming decoder would have decoded it: a sequence cut at the chunk's end is the next chunk's
  const bytes = readFileSync(fixture('upstream', 'anthropic', 'text-basic.sse'));
  const release = heldUntilRelease(checkFor('anthropic', true), chunk(bytes, 'bytes'));
  const upToContent = bytes.subarray(0, release);
  const tails: [string, number[], boolean][] = [
    ['a character cut after 2 of its 3 bytes', [0xe2, 0x82], true],
    ['a character cut after 3 of its 4 bytes', [0xf0, 0x9f, 0x98], true],
    ['a whole character', [0xe2, 0x82, 0xac], true],
    ['a byte that is never UTF-8', [0xff], false],
    ['a stray continuation byte', [0x80], false],
    ['an overlong start, cut', [0xe0, 0x80], false],
    ['a surrogate start, cut', [0xed, 0xa0], false],
    ['a lead byte cut short inside the rest', [0xe2, 0x41], false],
  ];
  for (const [what, tail, good] of tails) {
    const whole = Buffer.concat([upToContent, Buffer.from('data: x'), Buffer.from(tail)]);
    if (good) t.equal(checkFor('anthropic', true).feed(whole), true, `${what}: released`);
    else t.throws(() => checkFor('anthropic', true).feed(whole), { code: 'GW_ERR_INTEGRITY' }, `${what}: a failure`);
  }
});
