// provider-decode: upstream messages → canonical events, with the decoder of the dialect the
// `upstream` note names (or the `dialect` option). Anthropic's recorded streams and bodies decode to
// exactly the events recorded next to them (*.events.ndjson); every dialect's recordings decode the
// same whatever the byte chunking upstream of it (sse-decode → provider-decode as one chain).
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import type { CanonicalEvent, DialectName, UpstreamMessage } from '../../lib/chunks.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import { eventToJson, offlineContext } from '../../lib/offline-context.js';
import { chain } from '../../lib/stage.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { fixture } from '../helpers/paths.js';
import { failed, recorded, run, sameForEveryFeeding } from './harness.js';

const ctx = offlineContext({ reqId: 'req_provider_decode' });

const UPSTREAMS: Record<string, Pick<Upstream, 'protocol' | 'api'>> = {
  anthropic: { protocol: 'anthropic', api: 'messages' },
  'openai-chat': { protocol: 'openai', api: 'chat' },
  'openai-responses': { protocol: 'openai', api: 'responses' },
};

function note(dir: string, stream: boolean): ChainNote {
  return { note: 'upstream', upstream: { id: 'up', ...UPSTREAMS[dir]!, upstreamModel: 'm', stream, timing: { sentAt: 0 } } };
}

/** Bytes → events: the two stages chained, told which upstream answered. */
async function decodeBytes(dir: string, chunks: Buffer[], stream: boolean): Promise<{ events: unknown[]; error?: string }> {
  const got = await run(chain(sseDecode(), providerDecode()), [note(dir, stream), ...chunks], ctx);
  return { events: (got.values as CanonicalEvent[]).map(eventToJson), error: got.error?.code };
}

function ndjson(path: string): unknown[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
}

t.test('every dialect: each recorded stream and body decodes the same however the bytes are chunked', async (t) => {
  for (const dir of Object.keys(UPSTREAMS)) {
    for (const [ext, stream] of [['.sse', true], ['.json', false]] as const) {
      for (const { name, bytes } of recorded(dir, ext)) {
        const got = await sameForEveryFeeding(t, bytes, name, (chunks) => decodeBytes(dir, chunks, stream));
        const type = (got.events[0] as { type?: string } | undefined)?.type;
        t.ok(got.error === undefined && (type === 'message-start' || type === 'error'), `${name}: decodes, from the message start (or an upstream error)`);
      }
    }
  }
});

t.test('anthropic: the events recorded next to each fixture, exactly', async (t) => {
  let compared = 0;
  for (const [ext, stream, suffix] of [['.sse', true, '.events.ndjson'], ['.json', false, '.message.events.ndjson']] as const) {
    for (const { name, bytes } of recorded('anthropic', ext)) {
      const expected = fixture('upstream', name.replace(ext, suffix));
      if (!existsSync(expected)) continue;
      t.same((await decodeBytes('anthropic', [bytes], stream)).events, ndjson(expected), name);
      compared++;
    }
  }
  t.ok(compared >= 20, `${compared} recordings compared`);
});

t.test('the dialect comes from the upstream note, or from the option; messages are decoded one by one', async (t) => {
  const messages: UpstreamMessage[] = [
    { kind: 'sse', event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } }) },
    { kind: 'sse', event: 'ping', data: '{"type":"ping"}' },
  ];
  const byNote = await run(providerDecode(), [note('anthropic', true), ...messages], ctx);
  t.match(byNote.values, [{ type: 'message-start', id: 'msg_1', model: 'claude-x', usage: { input: 3, output: 1 } }, { type: 'ping' }]);
  const byOption = await run(providerDecode({ dialect: () => 'anthropic' }), messages, ctx);
  t.same(byOption.values.map(eventToJson), byNote.values.map(eventToJson), 'the option gives the same decoder');

  const chat = await run(providerDecode(), [note('openai-chat', false), { kind: 'json', body: readFileSync(fixture('upstream', 'openai-chat', 'text.json'), 'utf8') }], ctx);
  t.match(chat.values[0], { type: 'message-start' }, 'a JSON body through the chat decoder');
  t.match(chat.values.at(-1), { type: 'message-stop' });
});

t.test('no upstream to name the dialect, or a dialect without a decoder: GW_ERR_INTERNAL', async (t) => {
  const msg: UpstreamMessage = { kind: 'sse', event: 'ping', data: '{}' };
  t.match(failed(await run(providerDecode(), [msg], ctx)), { code: 'GW_ERR_INTERNAL', message: 'provider-decode: the upstream dialect is unknown' });
  const none = await run(providerDecode({ dialect: () => 'no-such' as DialectName }), [msg], ctx);
  t.match(failed(none), { code: 'GW_ERR_INTERNAL', message: 'provider-decode: no decoder for the no-such dialect' });
  t.same((await run(providerDecode(), [], ctx)).values, [], 'no message, no decoder needed, nothing output');
});

t.test('an Anthropic error frame mid-stream becomes an error event with the upstream wording', async (t) => {
  const bytes = readFileSync(fixture('upstream', 'errors', 'anthropic-200-midstream-overloaded_error.frame.sse'));
  const got = await sameForEveryFeeding(t, bytes, 'midstream error', (chunks) => decodeBytes('anthropic', chunks, true));
  t.match(got.events, [{ type: 'error', error: { message: /Overloaded|overloaded/ } }]);
});
