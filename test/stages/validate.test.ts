// validate: the parsed body → a canonical request, with the client dialect's validator. Run after
// parse-body, as the endpoints chain them: a request body fed whole, byte by byte or in random chunks
// validates to the same request (or the same error naming the field path), in every client dialect.
// The request keeps the raw bytes when the validator left the body as it came (native forwarding).
import t from 'tap';
import type { CanonicalRequest, DialectName, RawBody } from '../../lib/chunks.js';
import type { EndpointName } from '../../lib/context.js';
import { dialectFor } from '../../lib/dialects/index.js';
import { chain, type Stage } from '../../lib/stage.js';
import { parseBody } from '../../stages/parse-body.js';
import { validate, type Validator } from '../../stages/validate.js';
import { makeContext } from '../helpers/context.js';
import { failed, run, sameForEveryFeeding } from './harness.js';

const validator = (d: DialectName): Validator => (raw, ctx) => dialectFor(d).validate!(raw.value, ctx, undefined);

const BODIES: [DialectName, EndpointName, object][] = [
  ['anthropic', 'messages', { model: 'anthropic/claude-opus-5', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'héllo ✓' }] }],
  ['openai-chat', 'chat.completions', { model: 'anthropic/claude-opus-5', max_completion_tokens: 50, messages: [{ role: 'user', content: 'héllo ✓' }] }],
  ['openai-responses', 'responses', { model: 'anthropic/claude-opus-5', max_output_tokens: 50, stream: true, input: 'héllo ✓' }],
];

async function parsed(dialect: DialectName, endpoint: EndpointName, chunks: Buffer[]) {
  // a Messages request passed the header hook first: its validated `anthropic-*` headers
  const ctx = { ...makeContext({ dialect, endpoint }), anthropic: dialect === 'anthropic' ? { version: '2023-06-01', betas: [], sessionId: undefined, forward: {} } : null };
  const stage = chain(parseBody({ limit: 1 << 20 })(ctx), validate(validator(dialect))(ctx) as Stage<RawBody, CanonicalRequest>);
  const got = await run(stage, chunks, ctx);
  const req = got.values[0];
  // the comparable part of a request (the raw bytes' buffer differs between feedings)
  return { error: got.error, request: req && { source: req.source, model: req.model, stream: req.stream, maxTokens: req.maxTokens, body: req.body, modalities: [...req.needs.modalities], hasRaw: req.raw !== undefined } };
}

t.test('every client dialect: the same canonical request however the body is chunked', async (t) => {
  for (const [dialect, endpoint, body] of BODIES) {
    const bytes = Buffer.from(JSON.stringify(body));
    const got = await sameForEveryFeeding(t, bytes, `validate ${dialect}`, (chunks) => parsed(dialect, endpoint, chunks));
    t.equal(got.error, undefined, dialect);
    t.match(got.request, { source: dialect, model: 'anthropic/claude-opus-5', maxTokens: 50, modalities: ['text'] }, `${dialect}: the request`);
  }
});

t.test('an invalid field: GW_ERR_REQUEST_INVALID naming its path, whatever the chunking', async (t) => {
  const cases: [DialectName, EndpointName, object, string][] = [
    ['anthropic', 'messages', { model: 'm', max_tokens: -1, messages: [{ role: 'user', content: 'x' }] }, 'max_tokens'],
    ['anthropic', 'messages', { model: 'm', max_tokens: 5, messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role'],
    ['openai-chat', 'chat.completions', { model: 'm', messages: 'x' }, 'messages'],
    ['openai-responses', 'responses', { model: 'm', input: 'x', temperature: 'hot' }, 'temperature'],
  ];
  for (const [dialect, endpoint, body, param] of cases) {
    const got = await sameForEveryFeeding(t, Buffer.from(JSON.stringify(body)), `invalid ${dialect} ${param}`, (chunks) => parsed(dialect, endpoint, chunks));
    t.match(got.error, { status: 400, param }, `${dialect}: ${param}`);
    t.match(got.error?.code, /^GW_ERR_(REQUEST_INVALID|PARAMETER_UNSUPPORTED|CAPABILITY_REJECTED)$/, `${dialect}: ${param} code`);
  }
});

t.test('the raw body travels with the request only while the validator kept the body as it came', async (t) => {
  const ctx = makeContext();
  const raw: RawBody = { value: { a: 1 }, bytes: 7, raw: { bytes: Buffer.from('{"a":1}'), members: new Map() } };
  const same: Validator = (r) => ({ body: r.value } as unknown as CanonicalRequest);
  const copy: Validator = (r) => ({ body: { ...(r.value as object) } } as unknown as CanonicalRequest);
  t.equal((await run(validate(same)(ctx), [raw], ctx)).values[0]!.raw, raw.raw, 'the same body: raw kept');
  t.equal((await run(validate(copy)(ctx), [raw], ctx)).values[0]!.raw, undefined, 'a rewritten body: no raw');
  const thrower: Validator = () => {
    throw new Error('boom');
  };
  t.match(failed(await run(validate(thrower)(ctx), [raw], ctx)), { code: 'GW_ERR_INTERNAL' }, 'a validator bug is an internal error');
});
