// The layout compiler (lib/json/layout.ts) on its own: for each kind of hole, candidate value texts
// (canonical, escaped, near misses, out of range, duplicates), a frame is recognised only when the
// strict parser accepts it, and then as the very object the strict parser makes; the canonical ones
// are recognised. Optional members, spans, and the template rules are checked too.
import t from 'tap';
import { BOOL, compileLayout, COUNTS, INT, INT_OR_NULL, NUMBER, optional, spanned, STRING, STRING_OR_NULL, type Template } from '../../lib/json/layout.js';
import { parseStrict } from '../../lib/json/strict-parse.js';
import { label, sameJson, strictValue as strict } from './json-assert.js';

const CASES: [string, Template, string[], string[]][] = [
  // hole, values it must recognise, values it may not (any the strict parser accepts must then be equal)
  ['string', STRING, ['""', '"a"', '"caf\\u00e9 \\"q\\" \\\\ \\/ \\n"', '"\\ud83d\\ude00"', '"😀 日本"', '"\\ud800"'], ['"a\\q"', '"a\u0001"', '"a', 'a"', 'null', '1', '"\\u00e"']],
  ['int', INT, ['0', '7', '123456789012345'], ['01', '-1', '1.0', '1e2', '1234567890123456', '1e400', '"1"', 'null', '-0']],
  ['number', NUMBER, ['0', '1.0', '-1.5', '0.7', '123456789012345.25', '-0'], ['1e400', '01', '1.', '.5', '+1', '1e2', '-', 'NaN']],
  ['bool', BOOL, ['true', 'false'], ['True', '0', 'null', '"true"']],
  ['string or null', STRING_OR_NULL, ['null', '"x"'], ['nul', 'Null', '1']],
  ['int or null', INT_OR_NULL, ['null', '3'], ['"3"', '3.5']],
  [
    'counts', COUNTS,
    ['{}', '{"a":1}', '{"a":1,"b":null,"c":"standard","d":{"x":0,"y":2},"e":true}', '{"0":1,"a":2}'],
    ['{"a":1,"a":2}', '{"d":{"x":0,"x":1}}', '{"__proto__":1}', '{"a":1e400}', '{"a":"\\u0041"}', '{"a":{"b":{"c":1}}}', '{"a":[1]}', '{ "a":1}', '{"a":01}', '{"a":"x":1}'],
  ],
];

t.test('every hole: recognised exactly when the strict parser agrees', async (t) => {
  for (const [name, hole, good, bad] of CASES) {
    const layout = compileLayout({ type: 'x', value: hole, after: 1 });
    for (const value of [...good, ...bad]) {
      const frame = `{"type":"x","value":${value},"after":1}`;
      const got = layout(frame);
      const want = strict(frame);
      if (got !== null) t.ok(want !== undefined && sameJson(got.parsed, want), `${name} ${label(value)}: the strict parser's object`);
      if (good.includes(value)) t.not(got, null, `${name} ${label(value)} is recognised`);
      if (want === undefined) t.equal(got, null, `${name} ${label(value)}: refused by the strict parser, not recognised`);
    }
  }
});

t.test('literals, optional members, arrays, spans', async (t) => {
  const layout = compileLayout({ a: 'lit', b: optional(null), c: [{ d: spanned('d') }, []], e: optional({ f: INT }), g: {} });
  const check = (frame: string, recognised: boolean): void => {
    const got = layout(frame);
    t.equal(got !== null, recognised, `${label(frame)} ${recognised ? 'recognised' : 'not recognised'}`);
    if (got !== null) {
      t.ok(sameJson(got.parsed, parseStrict(frame)), 'the strict parser\'s object');
      const d = ((got.parsed.c as unknown[])[0] as { d: string }).d;
      t.equal(JSON.parse(frame.slice(...got.spans.d!)), d, 'the span holds the string');
    }
  };
  check('{"a":"lit","c":[{"d":"v"},[]],"g":{}}', true);
  check('{"a":"lit","b":null,"c":[{"d":"\\u0076"},[]],"e":{"f":2},"g":{}}', true);
  check('{"a":"l\\u0069t","c":[{"d":"v"},[]],"g":{}}', false); // a literal only in its canonical text
  check('{"a":"lit","c":[{"d":"v"},[1]],"g":{}}', false);
  check('{"a":"lit","c":[{"d":"v"},[]],"g":{},"h":1}', false);
  check('{"a":"lit","b":null,"b":null,"c":[{"d":"v"},[]],"g":{}}', false);
  check('{"a":"lit","c":[{"d":"v"},[]],"g":{}} ', false);
  const fresh = layout('{"a":"lit","c":[{"d":"v"},[]],"g":{}}')!.parsed;
  (fresh.g as Record<string, unknown>).mutated = true;
  t.same(layout('{"a":"lit","c":[{"d":"v"},[]],"g":{}}')!.parsed.g, {}, 'a literal object is a fresh one each time');
  t.throws(() => compileLayout({ a: optional(1) }), /cannot be optional/, 'the first member is never optional');
  t.equal(compileLayout({ a: STRING })(`{"a":"${'x'.repeat(70 * 1024)}"}`), null, 'longer frames take the general path');
});
