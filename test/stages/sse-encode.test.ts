// sse-encode: canonical events → SSE text in one client dialect. The encoder is built on the first
// event for `ctx.dialect` (or the `dialect` option), writes the model the client asked for (the
// routed note's, or `clientModel`; OpenAI dialects write the served model), exposes its keep-alive frame once built, and gives the dialect's
// terminal in-band error frame on failure. Recorded streams encode the same for every chunking.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { CanonicalEvent, DialectName } from '../../lib/chunks.js';
import { errors } from '../../lib/errors/index.js';
import type { ChainNote } from '../../lib/notes.js';
import { offlineContext } from '../../lib/offline-context.js';
import { chain } from '../../lib/stage.js';
import { integrity } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { sseEncode } from '../../stages/sse-encode.js';
import { makeRouted } from '../helpers/context.js';
import { fixture } from '../helpers/paths.js';
import { frames } from '../helpers/replay.js';
import { failed, run, sameForEveryFeeding } from './harness.js';

const BYTES = readFileSync(fixture('upstream', 'anthropic', 'tool-use-parallel.sse'));
const DIALECTS: DialectName[] = ['anthropic', 'openai-chat', 'openai-responses'];
const stamp = (text: string): string => text.replace(/"(created|created_at|completed_at)":\s?\d+/g, '"$1":0');

async function encode(dialect: DialectName, chunks: Buffer[]): Promise<string> {
  const ctx = offlineContext({ reqId: 'req_sse_encode', dialect });
  const got = await run(chain(sseDecode(), providerDecode({ dialect: () => 'anthropic' }), integrity(), sseEncode({ clientModel: 'my-model' })), chunks, ctx);
  if (got.error) throw got.error;
  return stamp((got.values as string[]).join(''));
}

t.test('recorded bytes, any chunking → the same SSE text, in every client dialect', async (t) => {
  for (const dialect of DIALECTS) {
    const text = await sameForEveryFeeding(t, BYTES, `sse-encode ${dialect}`, (chunks) => encode(dialect, chunks));
    const list = frames(text);
    t.ok(list.length > 5, `${dialect}: frames`);
    // Anthropic writes the model the client asked for; OpenAI dialects the model that served
    const model = dialect === 'anthropic' ? /"model":\s?"my-model"/ : /"model":\s?"claude-sonnet-4-20250514"/;
    t.match(text, model, `${dialect}: the model written`);
  }
  const anthropic = frames(await encode('anthropic', [BYTES]));
  t.equal(anthropic[0]!.event, 'message_start');
  t.equal(anthropic.at(-1)!.event, 'message_stop');
});

const START: CanonicalEvent = { type: 'message-start', id: 'msg_1', model: 'claude-x', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 } };

t.test('the keep-alive frame is known once the encoder is built (the first event)', async (t) => {
  const expected: Record<string, RegExp> = { anthropic: /^event: ping\n/, 'openai-chat': /^: keep-alive\n\n$/ };
  for (const dialect of ['anthropic', 'openai-chat'] as const) {
    const ctx = offlineContext({ dialect });
    const stage = sseEncode();
    t.equal(stage.keepalive, null, `${dialect}: none before`);
    stage.step(START, ctx);
    t.match(stage.keepalive, expected[dialect]!, `${dialect}: the dialect's frame after`);
  }
});

t.test('the model: the routed note, the option (a value or a function of what the notes said)', async (t) => {
  const ctx = offlineContext({ dialect: 'anthropic' });
  const routed = makeRouted('anthropic/claude-opus-5', { model: 'asked-for' });
  const note: ChainNote = { note: 'routed', routed };
  const byNote = await run(sseEncode(), [note, START], ctx);
  t.match(byNote.values.join(''), /"model":\s?"asked-for"/);
  const byFn = await run(sseEncode({ clientModel: (input) => `${input.routed?.modelId}!` }), [note, START], ctx);
  t.match(byFn.values.join(''), /"model":\s?"anthropic\/claude-opus-5!"/);
  const byOption = await run(sseEncode({ dialect: 'openai-chat' }), [note, START], ctx);
  t.match(byOption.values.join(''), /^data: \{"id":"msg_1","object":"chat.completion.chunk"/, 'the dialect option wins over ctx.dialect');
  const headers: ChainNote = { note: 'headers', headers: { 'request-id': 'req_from_upstream' } };
  const withId = await run(sseEncode(), [headers, START, { type: 'ping' }], ctx);
  t.equal(withId.error, undefined, 'a headers note is heard');
});

t.test('failure: the dialect terminal frame, built on demand; an unknown dialect is GW_ERR_INTERNAL', async (t) => {
  const err = errors.integrity('broken', undefined);
  const anthropic = [...sseEncode().fail!(err, offlineContext({ dialect: 'anthropic', reqId: 'req_1' }))].join('');
  t.equal(anthropic, 'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"The provider response failed an integrity check: broken"},"request_id":"req_1"}\n\n');
  const chat = sseEncode();
  const ctx = offlineContext({ dialect: 'openai-chat' });
  chat.step(START, ctx);
  t.match([...chat.fail!(err, ctx)].join(''), /^data: \{.*"error"/s, 'chat ends with an error chunk');
  const none = await run(sseEncode({ dialect: 'klingon' as DialectName }), [START], ctx);
  t.match(failed(none), { code: 'GW_ERR_INTERNAL', message: 'sse-encode: no SSE encoder for the klingon dialect' });
});

t.test('an event that writes nothing outputs nothing (not an empty string)', async (t) => {
  const ctx = offlineContext({ dialect: 'openai-chat' });
  const stage = sseEncode();
  stage.step(START, ctx);
  t.equal(stage.step({ type: 'block-stop', index: 0 }, ctx), undefined);
});
