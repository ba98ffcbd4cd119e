// parseChecked (JSON.parse, then checks) must behave exactly like parseStrict: the same value for
// every document parseStrict accepts, and the same JsonSyntaxError (reason, path, offset) for every
// one it refuses: duplicate keys (also through escapes), numbers beyond ±Infinity, nesting past the
// limit, and plain syntax errors. Strings that end in "," or "{" and strings that begin with ":"
// are where a key-counting shortcut could go wrong, so the generated documents are full of them.
import t from 'tap';
import { parseChecked } from '../../lib/json/checked-parse.js';
import { JsonSyntaxError, parseStrict } from '../../lib/json/strict-parse.js';
import { label, sameJson } from './json-assert.js';
import { generator, prng } from './json-gen.js';

type Outcome = { ok: true; value: unknown } | { ok: false; error: string };

function run(fn: () => unknown): Outcome {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) return { ok: false, error: `not a JsonSyntaxError: ${String(err)}` };
    return { ok: false, error: `${err.message} @${err.offset}` };
  }
}

/** '' when parseChecked and parseStrict agree on `text`, else what differs */
function differs(text: string, maxDepth?: number): string {
  const strict = run(() => parseStrict(text, maxDepth === undefined ? undefined : { maxDepth }));
  const checked = run(() => parseChecked(text, maxDepth));
  if (strict.ok && checked.ok) return sameJson(checked.value, strict.value) ? '' : `different values for ${label(text)}`;
  if (!strict.ok && !checked.ok) return checked.error === strict.error ? '' : `${label(text)}: ${label(checked.error)} vs ${label(strict.error)}`;
  return `${label(text)}: ${strict.ok ? 'only parseStrict accepts' : 'only parseChecked accepts'}`;
}

t.test('hand-picked documents: duplicates, traps for the key count, numbers, depth, syntax', async (t) => {
  const cases = [
    '{"a":1,"a":2}',
    '{"a":1,"\\u0061":2}',
    '{"x":{"k":1,"k":1}}',
    '[{"a":1},{"a":1},{"b":[{"c":1,"c":2}]}]',
    '{"a":"x,",":a":1,":a":2}',
    '{"a":"x,",":a":1}',
    '["a,",":",{"k":"{"},":"]',
    '{"a":"{","b":":","c":", ","d":" :"}',
    '{"a" : 1 , "b"\n:\t2}',
    '{"__proto__":{"x":1},"__proto__":2}',
    '{"__proto__":{"polluted":true}}',
    '{"n":1e400}',
    '[1,-1e999]',
    '1e400',
    '{"n":1.5e308,"m":-0,"o":123456789012345678901234567890}',
    '{"a":1,}',
    '{"a":1',
    '{"a":NaN}',
    '\ufeff{}',
    '{"s":"\\ud800","t":"\\"quoted\\" \\\\"}',
    '"just a string"',
    '42',
    '{"":1,"":2}',
  ];
  for (const text of cases) t.equal(differs(text), '', label(text));
  t.throws(() => parseChecked('{"a":1,"\\u0061":2}'), /duplicate key "a"/, 'a duplicate written with an escape is refused');
  t.throws(() => parseChecked('{"n":[1e400]}'), /not finite/);
  const proto = parseChecked('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(proto), Object.prototype);
  t.equal((proto as { polluted?: unknown }).polluted, undefined);
});

t.test('nesting: the same limit and the same error as parseStrict', async (t) => {
  for (const n of [3, 4, 5, 511, 512, 513, 5000]) {
    const text = '['.repeat(n) + ']'.repeat(n);
    t.equal(differs(text), '', `arrays nested ${n} deep`);
    t.equal(differs(text, 4), '', `arrays nested ${n} deep, limit 4`);
    const obj = '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    t.equal(differs(obj, 4), '', `objects nested ${n} deep, limit 4`);
  }
  t.throws(() => parseChecked('['.repeat(600) + ']'.repeat(600)), /nesting deeper than 512/);
});

/** A document built from atoms that sit next to a key's separator: strings ending in "," or "{", starting with ":" */
function trapDocument(rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const ATOMS = ['', ',', '{', ', ', '{ ', ':', ' :', ':x', 'a,', 'a{', '\\\\', '\\"', '\\\\\\"', ',\\"k\\":', 'k', 'a', '\\u0061', '\\u002c', 'é,'];
  const str = (): string => '"' + Array.from({ length: Math.floor(rand() * 3) }, () => pick(ATOMS)).join('') + '"';
  const ws = (): string => pick(['', '', ' ', '\n ', '\t']);
  const value = (depth: number): string => {
    const r = rand();
    if (depth > 4 || r < 0.3) return pick([str, str, () => '1', () => 'null', () => '-0.5e2', () => '1e999'])();
    if (r < 0.5) return '[' + Array.from({ length: Math.floor(rand() * 4) }, () => ws() + value(depth + 1) + ws()).join(',') + ']';
    const keys = Array.from({ length: Math.floor(rand() * 5) }, str);
    if (keys.length > 0 && rand() < 0.2) keys.push(pick(keys)); // a plain duplicate now and then
    return '{' + keys.map((k) => ws() + k + ws() + ':' + ws() + value(depth + 1) + ws()).join(',') + '}';
  };
  return value(0);
}

t.test('generated documents: parseChecked and parseStrict agree on every one', async (t) => {
  const rand = prng(424242);
  const gen = generator(rand);
  const failures: string[] = [];
  let refused = 0;
  for (let i = 0; i < 6000; i++) {
    const text = i % 2 === 0 ? gen(0) : trapDocument(rand);
    const d = differs(text);
    if (d !== '') failures.push(d);
    if (d === '' && run(() => parseStrict(text)).ok === false) refused++;
    // a mutation: one character dropped or inserted
    const at = Math.floor(rand() * (text.length + 1));
    const mutated = rand() < 0.5 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + '"{}[],:0-e.\\ 1tx'.charAt(Math.floor(rand() * 17)) + text.slice(at);
    const m = differs(mutated);
    if (m !== '') failures.push(m);
  }
  t.same(failures.slice(0, 5), [], 'no differences');
  t.ok(refused > 300, `${refused} generated documents were refused (duplicates, overflow) and parseChecked refused them the same way`);
});
