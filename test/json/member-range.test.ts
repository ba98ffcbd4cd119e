// A checked request body finds one top-level member's range by a scan that stops at it
// (CheckedBody.range, memberRange), without finding every member's: it must give exactly what the
// full scan gives (`members.get`), for every member and for absent ones, whatever the spacing,
// escapes, nesting or characters; and a native body edited through it goes upstream byte for byte as
// before (editedBody, spliceTopLevel).
import t from 'tap';
import { checkedBody } from '../../lib/json/checked-parse.js';
import { memberRange } from '../../lib/json/member-spans.js';
import { editedBody } from '../../lib/json/edit-members.js';
import { spliceTopLevel } from '../../lib/json/splice.js';
import type { JsonObject } from '../../lib/chunks.js';

const BODIES = [
  '{"model":"m","stream":false,"messages":[{"role":"user","content":"hi"}]}',
  ' { "model" : "m" ,\n\t"messages" : [ {"stream": true, "model": "inner"} ] , "stream" : false } ',
  '{"mod\\u0065l":"escaped key","k\\"q":1,"str\\\\":"a\\\\","\\"":{"x":[1,{"y":"}"}]}}',
  '{"a":"caf\u00e9 \ud83d\ude00","b":[],"c":{},"d":null,"e":-1.5e10,"f":true,"g":"\\"}{,:"}',
  '{}',
  '{"only":[[[["deep"]]]]}',
  '{"__proto__":{"x":1},"model":"p"}',
];

t.test('one member’s range is the full scan’s, for each member and for absent ones', async (t) => {
  for (const text of BODIES) {
    const full = checkedBody(Buffer.from(text)).members;
    const keys = [...full.keys(), 'absent', 'stream', 'mode', 'model2', ''];
    for (const key of keys) {
      t.same(memberRange(text, key), full.get(key), `${JSON.stringify(key)} in ${text}`);
      t.same(checkedBody(Buffer.from(text)).range(key), full.get(key), `CheckedBody.range ${JSON.stringify(key)} in ${text}`);
    }
  }
});

t.test('what is not an object gives null (the caller scans it all)', async (t) => {
  t.equal(memberRange('[1,2]', 'a'), null);
  t.equal(memberRange('"x"', 'a'), null);
});

t.test('a native body edited through it: the same bytes as through the full scan', async (t) => {
  const text = '{"model":"m","stream":false,"temperature":0.5,"messages":[{"role":"user","content":"caf\u00e9"}],"tools":[]}';
  const client = JSON.parse(text) as JsonObject;
  const upstream: JsonObject = { model: 'other', temperature: 0.5, messages: client.messages!, extra: 1 };
  const viaRange = editedBody(checkedBody(Buffer.from(text)), client, upstream);
  const full = checkedBody(Buffer.from(text));
  void full.members; // the full scan first: range() then reads the map
  const viaMap = editedBody(full, client, upstream);
  t.ok(viaRange);
  t.equal(viaRange!.toString(), viaMap!.toString());
  t.same(JSON.parse(viaRange!.toString()), upstream);
  const spliced = spliceTopLevel(checkedBody(Buffer.from(text)), { model: '"renamed"' });
  t.same(JSON.parse(spliced!.toString()), { ...client, model: 'renamed' });
});
