// memberSpans (lib/json/member-spans.ts): where the members of a valid JSON object's text lie, the
// places a native answer's changed members are spliced at. Each span's text must parse to the member's
// own value, whatever the spacing, escapes and nesting, and the path's inner objects too.
import t, { type Test } from 'tap';
import { memberSpans, valueSpan } from '../../lib/json/member-spans.js';

/** Each member's value as its span's text parses, and the key's text from its key offset. */
function check(t: Test, text: string): void {
  const spans = memberSpans(text);
  if (spans === null) return void t.fail(`no spans for ${text}`);
  const want = JSON.parse(text) as Record<string, unknown>;
  t.same([...spans.members.keys()], Object.keys(want), `keys of ${text.slice(0, 40)}`);
  for (const [key, [keyAt, start, end]] of spans.members) {
    t.same(JSON.parse(text.slice(start, end)), want[key], `value of ${key}`);
    t.equal(text[keyAt], '"');
    t.same(JSON.parse(`{${text.slice(keyAt, end)}}`), { [key]: want[key] }, `the member ${key} whole`);
  }
  t.equal(text[spans.close], '}');
  t.equal(text.slice(spans.close + 1).trim(), '', 'close is the last brace');
}

t.test('spacing, escapes, nesting, strings full of structure', async (t) => {
  check(t, '{}');
  check(t, ' { "a" : 1 , "b":[ 1, {"c":"}]\\"{["} ],\n"d\\u0065": "x\\\\", "e":null,"f":-1.5e3, "g":true }\n');
  check(t, '{"s":"\\\\\\"","t":"\\\\","u":{"v":[[],{}]},"w":"😀 é"}');
  check(t, JSON.stringify({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: 'a "quoted" {text} [x]' } }], usage: { a: 1 } }, null, 2));
});

t.test('a path: the inner objects, each walked once', async (t) => {
  const text = '{"id":"x", "choices" : [ {"index":0,"message":{"role":"assistant","content":"}{"} , "finish_reason":"stop"} ],"usage":{"p":1}}';
  const top = memberSpans(text, 0, ['choices', 'message']);
  t.ok(top);
  t.same(JSON.parse(text.slice(top!.members.get('choices')![1], top!.members.get('choices')![2])), JSON.parse(text).choices);
  const choice = top!.inner!;
  t.same([...choice.members.keys()], ['index', 'message', 'finish_reason']);
  t.equal(text.slice(choice.close, choice.close + 3), '} ]');
  const message = choice.inner!;
  t.same([...message.members.keys()], ['role', 'content']);
  t.equal(text.slice(message.close, message.close + 4), '} , ');
  const two = '{"choices":[{"a":1},{"b":2}],"z":0}';
  const spans = memberSpans(two, 0, ['choices']);
  t.same(JSON.parse(two.slice(spans!.members.get('choices')![1], spans!.members.get('choices')![2])), [{ a: 1 }, { b: 2 }], 'an array of more than one element is spanned whole');
  t.same([...spans!.inner!.members.keys()], ['a'], 'its first element is the inner object');
});

t.test('not an object: null', async (t) => {
  t.equal(memberSpans('[1]'), null);
  t.equal(memberSpans('"x"'), null);
});

t.test('valueSpan: the value at a path, as JSON.parse reads it', async (t) => {
  const at = (v: unknown, path: (string | number)[]): unknown => path.reduce<unknown>((o, k) => (o as Record<string | number, unknown> | undefined)?.[k], v);
  const texts = [
    ' { "output" : [ {"id":"a","content":[{"text":"}]\\"{["}]} , {"content": [ {"x":1}, {"text" :"b\\u00e9"} ]} ], "z":[] } ',
    JSON.stringify({ output: [{ type: 'reasoning', summary: [] }, { id: 'm', content: [{ type: 'output_text', text: 'hi "there"\n' }] }] }, null, 2),
    '{"output":[{"content":[{"text":"first"}]}],"output":[{"content":[{"text":"last"}]}]}',
    '{"output":[{"content":[{"text":"one","text":"two"}]}]}',
  ];
  const paths: (string | number)[][] = [['output', 0, 'content', 0, 'text'], ['output', 1, 'content', 1, 'text'], ['output', 1, 'content', 0, 'text'], ['output', 1], ['z'], ['output', 0, 'id']];
  for (const text of texts) {
    for (const path of paths) {
      const want = at(JSON.parse(text), path);
      const span = valueSpan(text, 0, path);
      if (want === undefined) t.equal(span, null, `${path.join('.')} is not in ${text.slice(0, 30)}`);
      else t.same(span === null ? undefined : JSON.parse(text.slice(span[0], span[1])), want, `${path.join('.')} of ${text.slice(0, 30)}`);
    }
  }
  t.equal(valueSpan('{"t\\u0065xt":"a"}', 0, ['text']), null, 'a key written with an escape: null');
  t.equal(valueSpan('{"text":"a","t\\u0065xt":"b"}', 0, ['text']), null, 'even after the key that matches');
  t.equal(valueSpan('[1]', 0, ['text']), null, 'not an object');
});
