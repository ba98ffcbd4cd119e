// Utf8Stream (lib/utf8-stream.ts) decodes exactly as a strict streaming TextDecoder does: on seeded
// random byte streams (text with line ends, characters of every length, BOMs at the start and in
// the middle, and now and then bytes that are not UTF-8) cut at random places, every chunk gives the
// same text, the same chunk is refused, and the end refuses the same cut characters.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { chunkBytes, prng } from '../lib/replay/chunking.js';
import { Utf8Stream } from '../lib/utf8-stream.js';
import { fixture } from './helpers/paths.js';

const BOM = [0xef, 0xbb, 0xbf];
const GOOD: number[][] = [[0x61], [0x0a], [0x3a, 0x20], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80], [0xed, 0x9f, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf], BOM];
const BAD: number[][] = [[0xff], [0x80], [0xc0, 0xaf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f]];

type Outcome = { texts: string[]; failedAt: number; end: string | 'refused' };

function run(decode: (c: Buffer) => string, end: () => string, chunks: Buffer[]): Outcome {
  const texts: string[] = [];
  for (let i = 0; i < chunks.length; i++) {
    try {
      texts.push(decode(chunks[i]!));
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
      return { texts, failedAt: i, end: 'refused' };
    }
  }
  let last: string;
  try {
    last = end();
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    last = 'refused';
  }
  return { texts, failedAt: -1, end: last };
}

t.test('the same text and the same refusals as a strict streaming TextDecoder, wherever the chunks are cut', async (t) => {
  let refused = 0;
  let cutAtEnd = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const rand = prng(seed);
    const bytes: number[] = rand() < 0.3 ? [...BOM] : [];
    const parts = 1 + Math.floor(rand() * 60);
    for (let p = 0; p < parts; p++) {
      const bad = rand() < 0.01;
      bytes.push(...(bad ? BAD : GOOD)[Math.floor(rand() * (bad ? BAD : GOOD).length)]!);
    }
    if (rand() < 0.05) bytes.push(0xe2, 0x82); // ends inside a character
    const whole = Buffer.from(bytes);
    const chunks: Buffer[] = [];
    for (let at = 0; at < whole.length; ) {
      const size = rand() < 0.1 ? 0 : rand() < 0.5 ? 1 + Math.floor(rand() * 4) : 1 + Math.floor(rand() * 40);
      chunks.push(whole.subarray(at, at + size));
      at += size;
    }
    const reference = new TextDecoder('utf-8', { fatal: true });
    const expected = run((c) => reference.decode(c, { stream: true }), () => reference.decode(), chunks);
    const stream = new Utf8Stream();
    const got = run((c) => stream.decode(c), () => stream.end(), chunks);
    if (expected.failedAt !== -1) refused++;
    else if (expected.end === 'refused') cutAtEnd++;
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      t.same(got, expected, `seed ${seed}: ${whole.toString('hex')}`);
      return;
    }
  }
  t.ok(refused > 100, `${refused} streams refused midway`);
  t.ok(cutAtEnd > 50, `${cutAtEnd} streams refused at their end`);
});

t.test('a BOM is dropped at the start of the stream only', async (t) => {
  const s = new Utf8Stream();
  t.equal(s.decode(Buffer.from([...BOM, 0x61, 0x0a])), 'a\n');
  t.equal(s.decode(Buffer.from([...BOM, 0x62, 0x0a])), '\ufeffb\n');
  const cut = new Utf8Stream();
  t.equal(cut.decode(Buffer.from(BOM.slice(0, 2))), '');
  t.equal(cut.decode(Buffer.from([BOM[2]!, 0x61, 0x0a])), 'a\n');
  t.equal(cut.decode(Buffer.from([...BOM, 0x0a])), '\ufeff\n');
});

t.test('every recorded upstream stream, whole, byte by byte and in random chunks, and with a character written over at random places, decodes as the strict decoder does', async (t) => {
  // most recorded chunks are all ASCII (read as latin1); some carry characters of 2-4 bytes, and the
  // mutations put one (or a byte that is not UTF-8) into chunks that were ASCII
  const dir = fixture('upstream');
  const files = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).flatMap((d) => readdirSync(join(dir, d)).filter((f) => f.endsWith('.sse')).map((f) => join(dir, d, f)));
  t.ok(files.length >= 30, `${files.length} recorded streams`);
  let checked = 0;
  for (const file of files) {
    const recorded = readFileSync(file);
    const variants: Buffer[] = [recorded];
    const rand = prng(recorded.length);
    for (let m = 0; m < 8; m++) {
      const at = Math.floor(rand() * recorded.length);
      const put = [...GOOD, ...BAD][Math.floor(rand() * (GOOD.length + BAD.length))]!;
      variants.push(Buffer.concat([recorded.subarray(0, at), Buffer.from(put), recorded.subarray(at + 1)]));
    }
    for (const [v, bytes] of variants.entries()) {
      for (const size of [bytes.length, 1, 'random'] as const) {
        for (const seed of size === 'random' ? [1, 2, 3] : [1]) {
          const chunks = chunkBytes(bytes, size, seed);
          const reference = new TextDecoder('utf-8', { fatal: true });
          const expected = run((c) => reference.decode(c, { stream: true }), () => reference.decode(), chunks);
          const stream = new Utf8Stream();
          const got = run((c) => stream.decode(c), () => stream.end(), chunks);
          checked++;
          if (JSON.stringify(got) !== JSON.stringify(expected)) {
            t.same(got, expected, `${file}, variant ${v}, chunks of ${size} (seed ${seed})`);
            return;
          }
        }
      }
    }
  }
  t.ok(checked > 1000, `${checked} decodings the same`);
});
