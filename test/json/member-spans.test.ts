// memberSpans (lib/json/member-spans.ts): where the members of a valid JSON object's text lie, the
// places a native answer's changed members are spliced at. Each span's text must parse to the member's
// own value, whatever the spacing, escapes and nesting, and the path's inner objects too.
import t, { type Test } from 'tap';
import { elementStarts, memberSpans, valueEnd } from '../../lib/json/member-spans.js';

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

t.test('elementStarts: where each element of an array begins', async (t) => {
  for (const text of ['[]', ' [ ] ', '[1]', '[ {"a":"],"} , [1,[2]], "x\\\"]", null ,-2e5 ]', JSON.stringify([{ id: 'a', content: [{ text: '}' }] }, { id: 'b' }], null, 2)]) {
    const at = text.indexOf('[');
    const starts = elementStarts(text, at);
    if (starts === null) return void t.fail(`no elements for ${text}`);
    const want = JSON.parse(text) as unknown[];
    t.same(starts.map((s) => JSON.parse(text.slice(s, valueEnd(text, s)))), want, `the elements of ${text.slice(0, 30)}`);
  }
  t.equal(elementStarts('{"a":1}', 0), null, 'not an array');
  t.equal(elementStarts('[1 2]', 0), null, 'no comma');
});
