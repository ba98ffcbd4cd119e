// editedBody: a native Chat or Responses body is the client's bytes with only the top-level members
// whose value the encoder changed edited (replaced, removed, appended). The result must parse to the
// same value as the re-serialised body, every untouched member byte for byte, whatever the spacing,
// member order or multi-byte text; when the bytes cannot be edited safely it says so (null).
import t from 'tap';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject } from '../../lib/chunks.js';
import { editedBody } from '../../lib/json/edit-members.js';
import { parseStrict } from '../../lib/json/strict-parse.js';
import type { RawJson } from '../../lib/json/splice.js';

function rawOf(text: string): { raw: RawJson; value: JsonObject } {
  const bytes = Buffer.from(text);
  const members = new Map<string, [number, number]>();
  const value = parseStrict(bytes, { topLevel: members }) as JsonObject;
  return { raw: { bytes, members }, value };
}

/** The client's object with `set` members set (undefined: removed), as an encoder builds it. */
function rebuilt(client: JsonObject, set: Record<string, unknown>): JsonObject {
  const out: JsonObject = Object.assign({}, client);
  for (const [k, v] of Object.entries(set)) {
    if (v === undefined) delete out[k];
    else out[k] = v as JsonObject;
  }
  return out;
}

t.test('nothing changed: the very bytes', async (t) => {
  const { raw, value } = rawOf('{ "model":"m", "messages":[] }');
  t.equal(editedBody(raw, value, Object.assign({}, value)), raw.bytes);
});

t.test('replaced, removed (first, middle, last) and appended members; the messages bytes untouched', async (t) => {
  const text = '{ "metadata" : {"a":1} ,\n "model": "alias", "messages": [{"role":"user","content":"caf\\u00e9 😀"}], "user":"u1", "seed": 7 }';
  const { raw, value } = rawOf(text);
  const body = rebuilt(value, { metadata: undefined, model: 'gpt-up', user: undefined, seed: undefined, max_completion_tokens: 100, stream_options: { include_usage: true } });
  const out = editedBody(raw, value, body)!.toString();
  t.same(JSON.parse(out), body, 'the value of the rebuilt body');
  t.match(out, '"messages": [{"role":"user","content":"caf\\u00e9 😀"}]', 'the conversation as the client wrote it');
  t.equal(out, '{ \n "model": "gpt-up", "messages": [{"role":"user","content":"caf\\u00e9 😀"}] ,"max_completion_tokens":100,"stream_options":{"include_usage":true}}');
});

t.test('a member whose key holds escapes and multi-byte text before it', async (t) => {
  const text = '{"système":"日本語","k\\"ey":1,"model":"m"}';
  const { raw, value } = rawOf(text);
  const body = rebuilt(value, { 'k"ey': undefined, model: 'x' });
  const out = editedBody(raw, value, body)!;
  t.same(JSON.parse(out.toString()), body);
  t.equal(out.toString(), '{"système":"日本語","model":"x"}');
});

t.test('every member removed but new ones: serialise instead (null)', async (t) => {
  const { raw, value } = rawOf('{"a":1}');
  t.equal(editedBody(raw, value, { b: 2 }), null);
});

t.test('generated bodies: the edit parses to the rebuilt value', async (t) => {
  let seed = 4242;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pieces = ['a', 'é', '😀', '日', '"', '\\', '\n', ' ', '}', '{', ':', ','];
  const str = (): string => Array.from({ length: rnd(8) }, () => pieces[rnd(pieces.length)]).join('');
  const keys = ['system', 'model', 'messages', 'max_tokens', 'metadata', 'user', 'z'];
  let edited = 0;
  for (let i = 0; i < 1000; i++) {
    const obj: Record<string, unknown> = {};
    for (const k of keys) if (rnd(3) !== 0 || k === 'model') obj[k] = k === 'messages' ? [{ role: 'user', content: str() }] : rnd(2) ? str() : rnd(1000);
    const order = Object.keys(obj).sort(() => rnd(3) - 1);
    const sp = (): string => ' \n\t'.slice(0, rnd(3));
    const text = `${sp()}{${order.map((k) => `${sp()}${JSON.stringify(k)}${sp()}:${sp()}${JSON.stringify(obj[k])}${sp()}`).join(',')}}${sp()}`;
    const { raw, value } = rawOf(text);
    const set: Record<string, unknown> = { model: `up-${str()}` };
    for (const k of keys) if (k !== 'model' && rnd(4) === 0) set[k] = rnd(2) ? undefined : str();
    if (rnd(2)) set[`added_${str()}`] = { n: rnd(9) };
    const body = rebuilt(value, set);
    const out = editedBody(raw, value, body);
    if (out === null) continue;
    edited++;
    if (!isDeepStrictEqual(JSON.parse(out.toString()), body)) {
      t.fail(`edit differs for ${text} with ${JSON.stringify(set)}: ${out.toString()}`);
      return;
    }
  }
  t.ok(edited > 900, `${edited} of 1000 generated bodies edited in place, each equal to the rebuilt value`);
});
