// parse-body: request bytes → one RawBody at the end (strict JSON), refusing with 413 as soon as the
// bytes counted pass the limit, and naming the path of the first JSON problem. The body is fed
// whole, byte by byte and in random chunks: the value, the member offsets and the errors agree.
import t from 'tap';
import type { RawBody } from '../../lib/chunks.js';
import { parseBody } from '../../stages/parse-body.js';
import { makeContext } from '../helpers/context.js';
import { failed, run, sameForEveryFeeding } from './harness.js';

const ctx = makeContext({ key: null });

async function parse(chunks: Buffer[], limit = 1 << 20): Promise<{ value?: unknown; members?: [string, [number, number]][]; bytes?: number; error?: { code: string; status: number; param: string | undefined; message: string } }> {
  const got = await run(parseBody({ limit })(ctx), chunks, ctx);
  if (got.error) return { error: { code: got.error.code, status: got.error.status, param: got.error.param, message: got.error.message } };
  const [body] = got.values as RawBody[];
  return { value: body!.value, bytes: body!.bytes, members: [...(body!.raw?.members ?? [])] };
}

const REQUEST = Buffer.from(JSON.stringify({ model: 'anthropic/claude-opus-5', max_tokens: 100, messages: [{ role: 'user', content: 'héllo ✓ 🙂' }], metadata: { user_id: 'u1' } }));

t.test('a JSON object: its value, byte count and the offsets of its top-level members, however it is fed', async (t) => {
  const got = await sameForEveryFeeding(t, REQUEST, 'parse-body ok', (chunks) => parse(chunks));
  t.same(got.value, JSON.parse(REQUEST.toString()));
  t.equal(got.bytes, REQUEST.length);
  const members = new Map(got.members);
  const [start, end] = members.get('messages')!;
  // offsets in UTF-16 units of the decoded text (for splicing a changed value back in)
  t.same(JSON.parse(REQUEST.toString().slice(start, end)), [{ role: 'user', content: 'héllo ✓ 🙂' }], 'the member offsets point at the member');
});

t.test('invalid JSON is GW_ERR_BODY_INVALID_JSON naming the path, whatever the chunking', async (t) => {
  const cases: [string, string, string | undefined][] = [
    ['duplicate key', '{"model":"a","messages":[{"role":"user","role":"x"}]}', 'messages[0].role'],
    ['trailing garbage', '{"model":"a"} x', undefined],
    ['NaN', '{"max_tokens":NaN}', 'max_tokens'],
    ['cut short', '{"messages":[{"role":"us', 'messages[0].role'],
  ];
  for (const [what, text, param] of cases) {
    const got = await sameForEveryFeeding(t, Buffer.from(text), `parse-body ${what}`, (chunks) => parse(chunks));
    t.match(got.error, { code: 'GW_ERR_BODY_INVALID_JSON', status: 400, message: /^The request body is not valid JSON: .*Nothing was processed\.$/ }, what);
    if (param !== undefined) t.equal(got.error?.param, param, `${what}: the error names ${param}`);
  }
});

t.test('invalid UTF-8 split across chunks is refused the same way as whole', async (t) => {
  const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]);
  const got = await sameForEveryFeeding(t, bytes, 'parse-body utf8', (chunks) => parse(chunks));
  t.match(got.error, { code: 'GW_ERR_BODY_INVALID_JSON', param: 'a' });
});

t.test('an empty body is refused as not JSON', async (t) => {
  const got = await run(parseBody({ limit: 100 })(ctx), [], ctx);
  t.match(failed(got), { code: 'GW_ERR_BODY_INVALID_JSON', status: 400, message: /body is empty/ });
});

t.test('the limit: one byte over fails on the chunk that passes it, without waiting for the end', async (t) => {
  const limit = REQUEST.length - 1;
  const got = await sameForEveryFeeding(t, REQUEST, 'parse-body limit', (chunks) => parse(chunks, limit));
  t.match(got.error, { code: 'GW_ERR_BODY_TOO_LARGE', status: 413, message: new RegExp(`maximum of ${limit} bytes`) });
  t.same((await parse([REQUEST], REQUEST.length)).value, JSON.parse(REQUEST.toString()), 'exactly the limit is accepted');

  const stage = parseBody({ limit: 10 })(ctx);
  t.equal(stage.step(Buffer.alloc(10, 0x20), ctx), undefined, 'up to the limit nothing is output');
  t.throws(() => stage.step(Buffer.from(' '), ctx), { code: 'GW_ERR_BODY_TOO_LARGE' }, 'the byte past it throws at once');
});

t.test('a declared Content-Length over the limit is refused when the stage is built, before any byte', async (t) => {
  const over = { ...makeContext({ key: null }), headers: { 'content-length': '101' } };
  t.throws(() => parseBody({ limit: 100 })(over), { code: 'GW_ERR_BODY_TOO_LARGE', status: 413 });
  const at = { ...over, headers: { 'content-length': '100' } };
  t.doesNotThrow(() => parseBody({ limit: 100 })(at));
});
