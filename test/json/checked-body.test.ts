// checkedBody (the request body parser of parse-body) must be parseStrict(bytes, { topLevel })
// exactly: the same value, the same top-level member ranges (where the native request encoders splice
// changed values into the client's bytes), and the same JsonSyntaxError (reason, path, offset) for
// every body it refuses, including a byte order mark and invalid UTF-8.
import t from 'tap';
import { checkedBody } from '../../lib/json/checked-parse.js';
import { JsonSyntaxError, parseStrict } from '../../lib/json/strict-parse.js';
import { label, sameJson } from './json-assert.js';
import { generator, prng } from './json-gen.js';

type Outcome = { ok: true; value: unknown; ranges: [string, [number, number]][] } | { ok: false; error: string };

function run(fn: (members: Map<string, [number, number]>) => unknown): Outcome {
  const members = new Map<string, [number, number]>();
  try {
    return { ok: true, value: fn(members), ranges: [...members] };
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) return { ok: false, error: `not a JsonSyntaxError: ${String(err)}` };
    return { ok: false, error: `${err.message} @${err.offset}` };
  }
}

/** '' when both parsers agree on `bytes`, else what differs */
function differs(bytes: Buffer): string {
  const strict = run((members) => parseStrict(bytes, { topLevel: members }));
  const checked = run((members) => {
    const body = checkedBody(bytes);
    for (const [key, range] of body.members) members.set(key, range);
    return body.value;
  });
  const name = label(bytes.toString('utf8'));
  if (strict.ok && checked.ok) {
    if (!sameJson(checked.value, strict.value)) return `different values for ${name}`;
    return JSON.stringify(checked.ranges) === JSON.stringify(strict.ranges) ? '' : `different ranges for ${name}: ${JSON.stringify(checked.ranges)} vs ${JSON.stringify(strict.ranges)}`;
  }
  if (!strict.ok && !checked.ok) return checked.error === strict.error ? '' : `${name}: ${label(checked.error)} vs ${label(strict.error)}`;
  return `${name}: ${strict.ok ? 'only parseStrict accepts' : 'only checkedBody accepts'}`;
}

t.test('hand-picked bodies', async (t) => {
  const cases = [
    '{"model":"x","messages":[{"role":"user","content":"caf\\u00e9 \\/ 😀"}],"stream":false}',
    ' { "model" : "x" ,\n "max_tokens": 10 }\n',
    '{"a":1,"a":2}',
    '{"a":1,"\\u0061":2}',
    '{"\\u006dodel":"x","s":"}{\\"","n":-1.5e3,"t":true,"z":null,"o":{"k":[1,{"q":"]"}]}}',
    '{"__proto__":{"x":1},"constructor":2}',
    '{"n":1e400}',
    '{"a":1,}',
    '{"a":1',
    '[{"a":1}]',
    '"str"',
    '{}',
    '{"é":"日本","😀":1}',
  ];
  for (const text of cases) t.equal(differs(Buffer.from(text)), '', label(text));
  t.equal(differs(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])), '', 'a byte order mark');
  t.equal(differs(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d])), '', 'invalid UTF-8');
});

t.test('randomized: generated objects, as bytes', async (t) => {
  const rand = prng(20261127);
  const gen = generator(rand);
  const failures: string[] = [];
  let objects = 0;
  for (let i = 0; i < 4000; i++) {
    let text = gen(0);
    // mostly top-level objects (the bodies that carry member ranges), some made of the generated values
    if (!text.trim().startsWith('{')) text = rand() < 0.8 ? `{"k":${text},"m" : ${gen(1)}}` : text;
    if (rand() < 0.2) text = text.slice(0, Math.floor(rand() * text.length)); // cut short
    const bytes = Buffer.from(text);
    const d = differs(bytes);
    if (d !== '') failures.push(d);
    if (text.trim().startsWith('{')) objects++;
  }
  t.same(failures.slice(0, 5), [], 'no document where they differ');
  t.ok(objects > 3000, `${objects} objects`);
});
