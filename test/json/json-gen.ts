// Generated JSON for the parsers' differential tests: a seeded PRNG and random documents with
// whitespace, escapes, lone surrogates, long numbers, awkward keys ("__proto__", "0", "") and nesting.

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of `xs`, drawn with `rand`. */
export const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** A seeded one-character mutation: the character at `at` deleted, or `text()` inserted before it or put in its place. */
export function editAt(data: string, at: number, edit: 'delete' | 'insert' | 'replace', text: () => string): string {
  if (edit === 'delete') return data.slice(0, at) + data.slice(at + 1);
  return data.slice(0, at) + text() + data.slice(edit === 'insert' ? at : at + 1);
}

export function generator(rand: () => number): (depth: number) => string {
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
