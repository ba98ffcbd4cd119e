// spliceTopLevel: a native body is the client's bytes with only changed top-level values swapped.
// The result must be the same JSON value as re-serialising would give, every other byte untouched,
// with ASCII and multi-byte text on either side of the replaced values.
import t from 'tap';
import { parseStrict } from '../../lib/json/strict-parse.js';
import { spliceTopLevel, type RawJson } from '../../lib/json/splice.js';

function rawOf(text: string): RawJson {
  const bytes = Buffer.from(text);
  const members = new Map<string, [number, number]>();
  parseStrict(bytes, { topLevel: members });
  return { bytes, members };
}

t.test('ranges: where each top-level value lies, whitespace excluded, nested members ignored', async (t) => {
  const text = '{ "model" :  "a" , "n":1e3,"o":{"model":"inner"},"s":"x\\"y"}';
  const { members } = rawOf(text);
  const at = (k: string): string => text.slice(...members.get(k)!);
  t.equal(at('model'), '"a"');
  t.equal(at('n'), '1e3');
  t.equal(at('o'), '{"model":"inner"}');
  t.equal(at('s'), '"x\\"y"');
  t.equal(members.size, 4, 'top level only');
});

t.test('ASCII body: only the value changes, every other byte (spacing, number spelling, escapes) stays', async (t) => {
  const text = '{\n  "model": "alias",\n  "max_tokens": 1e3,\n  "messages": [{"role":"user","content":"caf\\u00e9"}]\n}';
  const out = spliceTopLevel(rawOf(text), { model: '"claude-up"' })!.toString();
  t.equal(out, text.replace('"alias"', '"claude-up"'));
});

t.test('multi-byte text before, between and after the replaced values', async (t) => {
  const text = '{"system":"héllo 😀 wörld","model":"m","messages":[{"role":"user","content":"日本語 🎉"}],"max_tokens":99999,"thinking":{"type":"enabled","budget_tokens":5000},"tail":"ü"}';
  const out = spliceTopLevel(rawOf(text), { model: '"up"', max_tokens: '8192', thinking: '{"type":"enabled","budget_tokens":4096}' })!;
  const expected = { ...(JSON.parse(text) as object), model: 'up', max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 4096 } };
  t.same(JSON.parse(out.toString()), expected);
  t.equal(out.toString(), text.replace('"m"', '"up"').replace('99999', '8192').replace('{"type":"enabled","budget_tokens":5000}', '{"type":"enabled","budget_tokens":4096}'), 'byte for byte apart from the three values');
});

t.test('a member that is not in the body: null (the caller serialises)', async (t) => {
  t.equal(spliceTopLevel(rawOf('{"model":"m"}'), { model: '"x"', max_tokens: '5' }), null);
});

t.test('generated bodies: the splice parses to the object with the replacements', async (t) => {
  let seed = 12345;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pieces = ['a', 'é', '😀', '日', '"', '\\', '\n', ' ', '}', '{', ':'];
  const str = (): string => Array.from({ length: rnd(8) }, () => pieces[rnd(pieces.length)]).join('');
  for (let i = 0; i < 500; i++) {
    const obj: Record<string, unknown> = {};
    const keys = ['system', 'model', 'messages', 'max_tokens', 'metadata', 'z'];
    for (const k of keys) if (rnd(4) !== 0 || k === 'model') obj[k] = k === 'max_tokens' ? rnd(100000) : k === 'messages' ? [{ role: 'user', content: str() }] : str();
    // shuffle the key order and vary the spacing
    const order = Object.keys(obj).sort(() => rnd(3) - 1);
    const text = `{${order.map((k) => `${' '.repeat(rnd(2))}${JSON.stringify(k)}${' '.repeat(rnd(2))}:${' '.repeat(rnd(2))}${JSON.stringify(obj[k])}`).join(',')}}`;
    const replace: Record<string, string> = { model: JSON.stringify(`up-${str()}`) };
    if ('max_tokens' in obj && rnd(2) === 0) replace.max_tokens = String(rnd(5000));
    const out = spliceTopLevel(rawOf(text), replace);
    const expected: Record<string, unknown> = { ...(JSON.parse(text) as Record<string, unknown>) };
    for (const [k, v] of Object.entries(replace)) expected[k] = JSON.parse(v);
    if (out === null || JSON.stringify(JSON.parse(out.toString())) !== JSON.stringify(expected)) {
      t.fail(`splice differs for ${text} with ${JSON.stringify(replace)}: ${out?.toString()}`);
      return;
    }
  }
  t.pass('500 generated bodies');
});
