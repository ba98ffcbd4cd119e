// The strict parser against JSON.parse and a fatal TextDecoder on generated inputs: random valid
// JSON must parse the same, random mutations must be rejected whenever JSON.parse rejects them, and
// random bytes must be located as invalid UTF-8 exactly where the decoder fails.
import t from 'tap';
import { JsonSyntaxError, findInvalidUtf8, parseStrict } from '../../lib/json/strict-parse.js';
import { hasLoneSurrogate, label, sameJson } from './json-assert.js';
import { generator, prng } from './json-gen.js';

t.test('randomized differential against JSON.parse', async (t) => {
  const rand = prng(20240601);
  const gen = generator(rand);
  let checked = 0;
  const failures: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const text = gen(0);
    const expected: unknown = JSON.parse(text);
    let got: unknown;
    try {
      got = parseStrict(text);
    } catch (err) {
      if (err instanceof JsonSyntaxError && /duplicate key/.test(err.reason)) continue; // e.g. "a" and "\u0061"
      failures.push(`${label(text)}: ${label(String(err))}`);
      continue;
    }
    checked++;
    if (!sameJson(got, expected)) failures.push(`mismatch for ${label(text)}`);
    if (!hasLoneSurrogate(text) && !sameJson(parseStrict(Buffer.from(text)), expected)) failures.push(`bytes mismatch for ${label(text)}`);
    // a mutated input: parseStrict must reject whatever JSON.parse rejects, and only ever throw JsonSyntaxError
    const at = Math.floor(rand() * (text.length + 1));
    const mutated = rand() < 0.5 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + '"{}[],:0-e.\\ 1tx'.charAt(Math.floor(rand() * 17)) + text.slice(at);
    let loose: unknown;
    let looseOk = true;
    try {
      loose = JSON.parse(mutated);
    } catch {
      looseOk = false;
    }
    try {
      const strict = parseStrict(mutated);
      if (!looseOk) failures.push(`accepted invalid ${label(mutated)}`);
      else if (!sameJson(strict, loose)) failures.push(`mutated mismatch for ${label(mutated)}`);
    } catch (err) {
      if (!(err instanceof JsonSyntaxError)) failures.push(`non-JsonSyntaxError for ${label(mutated)}: ${label(String(err))}`);
      else if (looseOk && !/duplicate key|not finite/.test(err.reason)) failures.push(`rejected valid ${label(mutated)}: ${label(err.message)}`);
    }
  }
  t.same(failures.slice(0, 5), [], 'no differences');
  t.ok(checked > 2500, `checked ${checked} documents`);
});

t.test('findInvalidUtf8 agrees with a fatal TextDecoder on random bytes', async (t) => {
  const rand = prng(7);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const POOL = [0x41, 0x80, 0xbf, 0xc2, 0xc0, 0xdf, 0xe0, 0xa0, 0xed, 0x9f, 0xef, 0xf0, 0x90, 0xf4, 0x8f, 0xf5, 0xff];
  let disagreements = 0;
  for (let i = 0; i < 5000; i++) {
    const b = Uint8Array.from({ length: Math.floor(rand() * 8) }, () => POOL[Math.floor(rand() * POOL.length)] as number);
    const bad = findInvalidUtf8(b);
    let ok = true;
    try {
      decoder.decode(b);
    } catch {
      ok = false;
    }
    if (ok !== (bad < 0)) disagreements++;
    else if (bad >= 0) {
      try {
        decoder.decode(b.subarray(0, bad)); // the prefix before the reported byte is well-formed
      } catch {
        disagreements++;
      }
    }
  }
  t.equal(disagreements, 0);
});

