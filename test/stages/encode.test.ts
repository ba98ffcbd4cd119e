// encode: canonical events → the client's answer in its dialect. The `routed` note's `stream` picks
// SSE frames or one JSON document; the `head` note (status, content headers, whole or streaming, the
// keep-alive frame) goes out with the first output. Fed from recorded upstream bytes in any chunking,
// the client gets the same text, for every client dialect.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { DialectName } from '../../lib/chunks.js';
import type { EndpointName } from '../../lib/context.js';
import { errors } from '../../lib/errors/index.js';
import type { ChainNote, HeadNote, Upstream } from '../../lib/notes.js';
import { chain, type Stage } from '../../lib/stage.js';
import { encodeResponse, SSE_HEADERS } from '../../stages/encode.js';
import { integrity } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { makeContext, makeRouted } from '../helpers/context.js';
import { fixture } from '../helpers/paths.js';
import { frames } from '../helpers/replay.js';
import { failed, recorded, run, sameForEveryFeeding } from './harness.js';

const OPUS = 'anthropic/claude-opus-5';
const CLIENTS: [DialectName, EndpointName][] = [['anthropic', 'messages'], ['openai-chat', 'chat.completions'], ['openai-responses', 'responses']];

function notes(stream: boolean, model: string): ChainNote[] {
  const routed = makeRouted(OPUS);
  routed.request.stream = stream;
  routed.request.model = 'client-model';
  const upstream: Upstream = { id: 'sim', protocol: 'anthropic', api: 'messages', upstreamModel: model, stream: true, timing: { sentAt: 0 } };
  return [{ note: 'routed', routed }, { note: 'headers', headers: { 'request-id': 'req_upstream_1' } }, { note: 'upstream', upstream }];
}

/** Recorded Anthropic upstream bytes → decode → integrity → encode, in one client dialect. */
async function answer(dialect: DialectName, endpoint: EndpointName, chunks: Buffer[], stream: boolean, model: string) {
  const ctx = makeContext({ dialect, endpoint, reqId: 'req_gw_1' });
  const stages = chain(sseDecode(), providerDecode(), integrity(), encodeResponse()(ctx) as Stage<never, string | HeadNote>);
  const got = await run(stages as Stage<Buffer, string | HeadNote>, [...notes(stream, model), ...chunks], ctx);
  // OpenAI answers carry the wall-clock second they were made: the one thing a chunking may change
  const text = (got.values as string[]).join('').replace(/"(created|created_at|completed_at)":\s?\d+/g, '"$1":0');
  return { text, heads: got.notes.filter((n) => n.note === 'head'), error: got.error?.code };
}

const modelOf = (bytes: Buffer): string => /"model":"([^"]+)"/.exec(bytes.toString())![1]!;

t.test('every client dialect, streaming and not: the same answer however the upstream bytes are chunked', async (t) => {
  for (const file of ['text-basic.sse', 'tool-use-parallel.sse', 'thinking-signature.sse']) {
    const bytes = readFileSync(fixture('upstream', 'anthropic', file));
    for (const [dialect, endpoint] of CLIENTS) {
      for (const stream of [true, false]) {
        const label = `${file} → ${dialect} ${stream ? 'SSE' : 'JSON'}`;
        const got = await sameForEveryFeeding(t, bytes, label, (chunks) => answer(dialect, endpoint, chunks, stream, modelOf(bytes)));
        t.equal(got.error, undefined, label);
        t.equal(got.heads.length, 1, `${label}: one head`);
        if (stream) {
          t.match(got.heads[0], { status: 200, whole: false, headers: SSE_HEADERS }, `${label}: a streaming head`);
          t.ok(frames(got.text).length > 2, `${label}: SSE frames`);
          // Anthropic echoes the model the client asked for, OpenAI names the model that served
          t.match(got.text, dialect === 'anthropic' ? /"model":\s?"client-model"/ : /"model":\s?"anthropic\/claude-opus-5"/, `${label}: the model`);
        } else {
          t.match(got.heads[0], { status: 200, whole: true, keepalive: null, headers: { 'content-type': 'application/json' } }, `${label}: a whole-document head`);
          t.match(JSON.parse(got.text), { model: dialect === 'anthropic' ? 'client-model' : OPUS }, `${label}: one JSON document`);
        }
      }
    }
  }
});

t.test('every recorded Anthropic stream encodes in every client dialect', async (t) => {
  for (const { name, bytes } of recorded('anthropic', '.sse')) {
    for (const [dialect, endpoint] of CLIENTS) {
      const got = await answer(dialect, endpoint, [bytes], true, modelOf(bytes));
      t.equal(got.error, undefined, `${name} → ${dialect}`);
    }
  }
});

t.test('the head: the dialect keep-alive frame; Anthropic shows the upstream request id', async (t) => {
  const bytes = readFileSync(fixture('upstream', 'anthropic', 'text-basic.sse'));
  const a = await answer('anthropic', 'messages', [bytes], true, modelOf(bytes));
  t.equal((a.heads[0] as HeadNote).keepalive, 'event: ping\ndata: {"type": "ping"}\n\n');
  const json = JSON.parse((await answer('anthropic', 'messages', [bytes], false, modelOf(bytes))).text) as { usage: { output_tokens: number } };
  t.ok(json.usage.output_tokens > 0, 'the JSON answer carries the usage');
  const c = await answer('openai-chat', 'chat.completions', [bytes], true, modelOf(bytes));
  t.match((c.heads[0] as HeadNote).keepalive, /^:/, 'chat keeps alive with an SSE comment');
});

t.test('the head goes out with the first output, then never again', async (t) => {
  const ctx = makeContext();
  const stage = encodeResponse()(ctx);
  for (const n of notes(true, 'claude-x')) stage.note!(n, ctx);
  const first = stage.step({ type: 'message-start', id: 'msg_1', model: 'claude-x', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 } }, ctx) as unknown[];
  t.match(first[0], { note: 'head', status: 200 });
  t.match(first[1], /^event: message_start\n/);
  const second = stage.step({ type: 'ping' }, ctx) as unknown[];
  t.notOk(second.some((x) => typeof x === 'object'), 'no second head');
});

t.test('failure after output: the dialect terminal frame; no JSON encoder for a dialect: GW_ERR_INTERNAL', async (t) => {
  const ctx = makeContext();
  const stage = encodeResponse()(ctx);
  for (const n of notes(true, 'claude-x')) stage.note!(n, ctx);
  const frame = stage.fail!(errors.integrity('broken', undefined), ctx);
  t.match([...frame].join(''), /^event: error\ndata: .*"type":\s*"error"/s);

  const transcription = makeContext({ dialect: 'openai-transcriptions', endpoint: 'audio.transcriptions' });
  const got = await run(encodeResponse()(transcription), [{ type: 'ping' }], transcription);
  t.match(failed(got), { code: 'GW_ERR_INTERNAL', message: 'no JSON encoder for the openai-transcriptions dialect' }, 'no routed note: not streaming, and no JSON encoder');
});
