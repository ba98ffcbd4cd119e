// copyWith: `{ ...obj, key: value }` without V8's per-object hidden classes (its cost is measured in
// bench/, not here). The copy must be the same JSON as the spread gives (member order, a replaced
// member in place, a new one at the end), leave the source alone, and keep a client's own
// "__proto__" member as data.
import t from 'tap';
import type { JsonObject } from '../../lib/chunks.js';
import { copyWith } from '../../lib/json/copy-with.js';
import { parseStrict } from '../../lib/json/strict-parse.js';

t.test('same JSON as the spread: replaced in place, added at the end, source untouched', async (t) => {
  const src: JsonObject = { model: 'a', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };
  const before = JSON.stringify(src);
  const replaced = copyWith(src, 'model', 'b');
  t.equal(JSON.stringify(replaced), JSON.stringify({ ...src, model: 'b' }));
  t.equal(JSON.stringify(replaced), '{"model":"b","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}');
  const added = copyWith(src, 'stream_options', { include_usage: true });
  t.equal(JSON.stringify(added), '{"model":"a","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true}}');
  t.equal(JSON.stringify(src), before, 'the source is not changed');
  t.equal(added.messages, src.messages, 'shallow: members are shared, not cloned');
});

t.test('an own "__proto__" member stays a member and the prototype stays Object.prototype', async (t) => {
  const src = parseStrict(Buffer.from('{"model":"a","__proto__":{"polluted":true},"n":1}')) as JsonObject;
  t.ok(Object.hasOwn(src, '__proto__'), 'the strict parser keeps it as data');
  const out = copyWith(src, 'model', 'b');
  t.equal(Object.getPrototypeOf(out), Object.prototype);
  t.equal((out as { polluted?: unknown }).polluted, undefined, 'nothing inherited from the client value');
  t.equal(JSON.stringify(out), '{"model":"b","__proto__":{"polluted":true},"n":1}');
});
