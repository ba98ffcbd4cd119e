// The library as a user imports it: everything here comes from 'model-gateway' (the package's
// `exports`, reached by self-reference), never from a file path. A custom pipeline is composed from
// the public stages plus one stage of the user's own, and run both as one stage and as Node streams.
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import * as library from 'model-gateway';
import { chain, defineStage, GatewayError, integrity, offlineContext, providerDecode, runStage, sseDecode, sseEncode, toTransform, type CanonicalEvent, type Stage } from 'model-gateway';
import { fixture } from '../helpers/paths.js';

const TOOL_USE = fixture('upstream', 'anthropic', 'tool-use-parallel.sse');

/** What the package exports at run time; types are checked by this file compiling at all. */
const EXPORTED = [
  'Chain',
  'DIALECT_NAMES',
  'dialects',
  'detectDialect',
  'replay',
  'dialectFor',
  'ERROR_CODES',
  'GatewayError',
  'chain',
  'countTokensUnavailable',
  'createGateway',
  'defineStage',
  'dispatch',
  'dispatchTranscription',
  'encodeResponse',
  'encodeTranscriptionResponse',
  'encodeUpstreamRequest',
  'endpoints',
  'EncoderState',
  'eventToJson',
  'fuseStages',
  'isNote',
  'integrity',
  'jsonEncoders',
  'offlineContext',
  'parseBody',
  'parseMultipart',
  'providerDecode',
  'renderError',
  'reserveCredits',
  'reserveForJob',
  'route',
  'routeTranscription',
  'runStage',
  'settle',
  'settleForResult',
  'sseDecode',
  'sseEncode',
  'sseEncoders',
  'toTransform',
  'upstreamDecoders',
  'upstreamDialect',
  'validate',
];

/** Chat Completions SSE text → the `data:` payloads (without [DONE]). */
function chatChunks(sse: string): Record<string, unknown>[] {
  return sse
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice('data: '.length)) as Record<string, unknown>);
}

function chatText(sse: string): string {
  let text = '';
  for (const c of chatChunks(sse)) {
    const choices = c.choices as { delta: { content?: string } }[];
    for (const ch of choices) text += ch.delta.content ?? '';
  }
  return text;
}

/** The user's own stage: text deltas in upper case (dropping the native frame it no longer matches). */
function shout(): Stage<CanonicalEvent, CanonicalEvent> {
  return defineStage<CanonicalEvent, CanonicalEvent>({
    name: 'shout',
    step(ev) {
      if (ev.type !== 'text-delta') return [ev];
      return [{ type: 'text-delta', index: ev.index, text: ev.text.toUpperCase() }];
    },
  });
}

function customPipeline(): Stage<Buffer, string> {
  const decode = chain(sseDecode(), providerDecode({ dialect: () => 'anthropic' }), integrity());
  return chain(decode, shout(), sseEncode({ dialect: 'openai-chat' }));
}

t.test('the package exports the public API by name', async (t) => {
  t.same(Object.keys(library).sort(), [...EXPORTED].sort());
});

t.test('a custom pipeline from the public exports runs as one stage and as Node streams, alike', async (t) => {
  const bytes = readFileSync(TOOL_USE);
  const whole = (await runStage(customPipeline(), [bytes], offlineContext({ dialect: 'openai-chat' }))).join('');
  t.equal(chatText(whole), "I'LL RETRIEVE THE SECRETS FOR BOTH PASSWORDS YOU PROVIDED.", 'the custom stage ran between integrity and the encoder');
  t.match(whole, /"finish_reason":"tool_calls"/);
  t.ok(whole.endsWith('data: [DONE]\n\n'));

  // the same stages as a stream/promises pipeline of Transforms, fed one byte at a time
  const ctx = offlineContext({ dialect: 'openai-chat' });
  let streamed = '';
  const oneByte = Readable.from((function* () {
    for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
  })());
  await pipeline(
    oneByte,
    toTransform(customPipeline(), ctx),
    new Writable({
      objectMode: true,
      write(chunk: string, _enc, cb) {
        streamed += chunk;
        cb();
      },
    }),
  );
  const strip = (s: string): string => s.replace(/"created":\d+/g, '"created":0');
  t.equal(strip(streamed), strip(whole));
});

t.test('a broken stream fails with a GatewayError the user can read', async (t) => {
  const bytes = readFileSync(TOOL_USE);
  const cut = bytes.subarray(0, Math.floor(bytes.length / 2));
  const ctx = offlineContext({ dialect: 'openai-chat' });
  const err = await runStage(customPipeline(), [cut], ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(GatewayError.is(err), 'a GatewayError');
  t.equal((err as GatewayError).code, 'GW_ERR_INTEGRITY');
  t.match((err as GatewayError).message, /stream ended before message_stop/);
  // the encoder's in-band terminal frame, as the server would end the stream
  const encoder = sseEncode({ dialect: 'openai-chat' });
  const frames = [...(encoder.fail?.(err as GatewayError, ctx) ?? [])].join('');
  t.match(frames, /"error":\{"code":"internal_error","message":"The provider response failed an integrity check: stream ended before message_stop"/);
  t.ok(frames.endsWith('data: [DONE]\n\n'));
});
