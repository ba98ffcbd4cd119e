// jsonOf (lib/dialects/openai-responses/client-encode-echo.ts) writes each member of a Responses
// client's Response event: a string with no character JSON.stringify escapes as that string in
// quotes, an empty object or array as its brackets, anything else through JSON.stringify. Its text
// must be JSON.stringify's, byte for byte: checked for every UTF-16 code unit on its own and inside
// plain text (quotes, backslashes, controls, lone surrogates, U+2028), pairs, objects that are empty
// only to JSON.stringify, and thousands of seeded documents. A quoting rule that lets one escaped
// character through, or an emptiness check that reads an inherited or hidden key, fails here.
import t from 'tap';
import type { JsonValue } from '../../../lib/chunks.js';
import { jsonOf } from '../../../lib/dialects/openai-responses/client-encode-echo.js';
import { label } from '../../json/json-assert.js';
import { generator, prng } from '../../json/json-gen.js';

t.test('every code unit, alone and inside plain text, is written as JSON.stringify writes it', async (t) => {
  let wrong = 0;
  for (let c = 0; c <= 0xffff; c++) {
    const ch = String.fromCharCode(c);
    for (const s of [ch, `plain ${ch} text`, `${ch}${ch}`]) {
      if (jsonOf(s) !== JSON.stringify(s)) {
        if (wrong++ < 5) t.fail(`code unit ${c.toString(16)}: ${label(jsonOf(s))}`);
      }
    }
  }
  t.equal(wrong, 0, 'no code unit written otherwise');
  for (const s of ['', '😀', 'a\ud83d\ude00b', '\ude00\ud83d', 'x'.repeat(20_000), `${'y'.repeat(20_000)}"`, 'You are an agent.\n\tRun `npm test`.']) {
    t.equal(jsonOf(s), JSON.stringify(s), label(s.slice(0, 40)));
  }
});

t.test('empty objects and arrays, and objects empty only to JSON.stringify', async (t) => {
  const hidden = {};
  Object.defineProperty(hidden, 'x', { value: 1, enumerable: false });
  const symbol = { [Symbol('s')]: 1 };
  const inherited = Object.create({ a: 1 }) as object;
  const sparse: unknown[] = [];
  sparse.length = 3;
  const values: unknown[] = [{}, [], hidden, symbol, inherited, sparse, { a: undefined }, [undefined], Object.create(null), { '': 0 }, { __proto__: null, a: 1 }, [[]], { a: {} }];
  for (const v of values) t.equal(jsonOf(v as JsonValue), JSON.stringify(v), JSON.stringify(v));
  for (const v of [null, true, false, 0, -0, 1e21, 5e-7, -1.5, Number.NaN, Infinity, -Infinity, 2 ** 53]) t.equal(jsonOf(v as JsonValue), JSON.stringify(v), String(v));
});

t.test('seeded documents: every value and member written as JSON.stringify writes it', async (t) => {
  let checked = 0;
  for (let seed = 1; seed <= 4000; seed++) {
    let doc: JsonValue;
    try {
      doc = JSON.parse(generator(prng(seed))(0)) as JsonValue;
    } catch {
      continue; // a generated key decoding to another's: not a document
    }
    const members = typeof doc === 'object' && doc !== null ? Object.values(doc) : [];
    for (const v of [doc, ...members]) {
      checked++;
      if (jsonOf(v) !== JSON.stringify(v)) t.fail(`seed ${seed}: ${label(JSON.stringify(v).slice(0, 80))}`);
    }
  }
  t.ok(checked > 8000, `${checked} values checked`);
});
