// The strict parser against JSON.parse and a fatal TextDecoder on generated inputs: random valid
// JSON must parse the same, random mutations must be rejected whenever JSON.parse rejects them, and
// random bytes must be located as invalid UTF-8 exactly where the decoder fails.
import t from 'tap';
import { JsonSyntaxError, findInvalidUtf8, parseStrict } from '../../lib/json/strict-parse.js';
import { hasLoneSurrogate, label, sameJson } from './json-assert.js';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(rand: () => number): (depth: number) => string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const ws = (): string => (rand() < 0.6 ? '' : Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick([' ', '\t', '\n', '\r'])).join(''));
  const digits = (n: number): string => Array.from({ length: n }, () => pick('0123456789'.split(''))).join('');
  const number = (): string => {
    let s = rand() < 0.3 ? '-' : '';
    s += rand() < 0.2 ? '0' : pick('123456789'.split('')) + digits(Math.floor(rand() * (rand() < 0.1 ? 25 : 6)));
    if (rand() < 0.3) s += '.' + digits(1 + Math.floor(rand() * 8));
    if (rand() < 0.2) s += pick(['e', 'E']) + pick(['', '+', '-']) + digits(1 + Math.floor(rand() * 2));
    return s;
  };
  const CHARS = ['a', 'b', 'Z', ' ', 'é', '日', '😀', '/', '\u2028', '\ud800', '\udc00'];
  const ESCAPES = ['\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u0041', '\\u00e9', '\\ud83d\\ude00', '\\uD800', '\\udfff', '\\u0000'];
  const string = (): string => {
    let s = '"';
    const n = Math.floor(rand() * (rand() < 0.05 ? 300 : 10));
    for (let i = 0; i < n; i++) s += rand() < 0.2 ? pick(ESCAPES) : pick(CHARS);
    return s + '"';
  };
  const KEYS = ['a', 'b', 'type', 'content', '0', '1', '10', '__proto__', 'constructor', 'a b', ''];
  const value = (depth: number): string => {
    const r = rand();
    if (depth > 5 || r < 0.35) return pick([number, number, string, string, () => pick(['true', 'false', 'null'])])();
    if (r < 0.65) {
      const n = Math.floor(rand() * 5);
      return ws() + '[' + ws() + Array.from({ length: n }, () => ws() + value(depth + 1) + ws()).join(',') + ws() + ']' + ws();
    }
    const keys = [...new Set(Array.from({ length: Math.floor(rand() * 6) }, () => (rand() < 0.5 ? pick(KEYS) : string().slice(1, -1))))];
    const members = keys.map((k) => ws() + '"' + k + '"' + ws() + ':' + ws() + value(depth + 1) + ws());
    // a generated key may decode to the same string as another one: those inputs are skipped below
    return '{' + members.join(',') + '}';
  };
  return (depth) => ws() + value(depth) + ws();
}

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

