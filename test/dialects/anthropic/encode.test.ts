// The Messages encoders on events that did NOT come from an Anthropic upstream (no native frame,
// as a translator from another dialect emits them), private envelope fields, the gateway object,
// and the in-band failure frame.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { CanonicalEvent, JsonObject } from '../../../lib/chunks.js';
import { anthropicJsonEncode } from '../../../lib/dialects/anthropic/encode-json.js';
import { createError } from '../../../lib/errors.js';
import { offlineContext } from '../../../lib/offline-context.js';
import { EncoderState } from '../../../lib/encoder-input.js';
import { sseEncode } from '../../../stages/sse-encode.js';
import { fixture } from '../../helpers/paths.js';
import { accumulate, decode, encodeJson, encodeSse, frames, runSync } from '../../helpers/replay.js';

type Obj = Record<string, unknown>;
const strip = (events: CanonicalEvent[]): CanonicalEvent[] => events.map(({ native: _n, ...rest }) => rest as CanonicalEvent);
/** what survives translation: the portable parts of each block */
const portable = (m: Obj): Obj => ({
  stop_reason: m.stop_reason,
  stop_sequence: m.stop_sequence,
  output_tokens: (m.usage as Obj).output_tokens,
  input_tokens: (m.usage as Obj).input_tokens,
  content: (m.content as Obj[])
    .filter((b) => ['text', 'thinking', 'redacted_thinking', 'tool_use'].includes(b.type as string))
    .map(({ type, text, citations, thinking, signature, data, id, name, input }) => JSON.parse(JSON.stringify({ type, text, citations, thinking, signature, data, id, name, input })) as Obj),
});

for (const name of ['tool-use-parallel.sse', 'web-search-citations.sse', 'thinking-signature.sse', 'redacted-thinking.sse', 'stop-sequence.sse', 'web-search-citations.json']) {
  t.test(`translated events: ${name}`, async (t) => {
    const { events } = await decode([readFileSync(fixture('upstream', 'anthropic', name))]);
    const native = JSON.parse(await encodeJson(events, 'client-model')) as Obj;
    const foreign = strip(events);
    const sse = await encodeSse(foreign, 'client-model');
    const list = frames(sse);
    const indexes = list.filter((f) => f.event === 'content_block_start').map((f) => (JSON.parse(f.data) as Obj).index);
    t.same(indexes, indexes.map((_, i) => i), 'client indexes are contiguous (opaque blocks dropped)');
    for (const f of list) t.equal((JSON.parse(f.data) as Obj).type, f.event, `${String(f.event)}: data.type = event name`);
    const streamed = accumulate(list);
    t.equal(streamed.model, 'client-model');
    t.same(portable(streamed), portable(native), 'SDK accumulation of the translated stream');
    t.same(portable(JSON.parse(await encodeJson(foreign, 'client-model')) as Obj), portable(native), 'JSON encoder on translated events');
  });
}

t.test('private envelope fields are removed, content is untouched', async (t) => {
  const message = {
    id: 'msg_1', type: 'message', role: 'assistant', model: 'up-model', cost: 0.12, content: [] as unknown[],
    stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1, cost: 0.1, cost_details: { x: 1 } },
  };
  const tool = { type: 'tool_use', id: 't1', name: 'price', input: { cost: 5, usage: { cost: 1 } } };
  const body = [
    ['message_start', { type: 'message_start', message }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: tool }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9, cost: 0.2 } }],
    ['message_stop', { type: 'message_stop' }],
  ].map(([e, d]) => `event: ${e as string}\ndata: ${JSON.stringify(d)}\n\n`).join('');
  const { events } = await decode([Buffer.from(body)]);
  const sse = frames(await encodeSse(events, 'client-model'));
  const { cost: _cost, ...envelope } = message;
  t.same(JSON.parse(sse[0]!.data), { type: 'message_start', message: { ...envelope, model: 'client-model', usage: { input_tokens: 3, output_tokens: 1 } } }, 'message_start: model replaced, cost fields removed');
  t.equal(sse[1]!.data, JSON.stringify({ type: 'content_block_start', index: 0, content_block: tool }), 'cost inside tool input kept byte for byte');
  t.same(JSON.parse(sse[3]!.data).usage, { output_tokens: 9 }, 'message_delta usage.cost removed');
  const ctx = offlineContext();
  const [json] = runSync<string>([anthropicJsonEncode(new EncoderState(ctx.reqId, undefined), { clientModel: 'client-model', gatewayInfo: () => ({ routed: false }) })], events, ctx);
  const out = JSON.parse(json!) as Obj;
  t.same(out, { id: 'msg_1', type: 'message', role: 'assistant', model: 'client-model', content: [tool], stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 3, output_tokens: 9 }, gateway: { routed: false } });
});

t.test('fail() and the keep-alive frame', async (t) => {
  const ctx = offlineContext({ reqId: 'req_abc' });
  const stage = sseEncode();
  const err = createError('GW_ERR_INTEGRITY', 'tool input of block 0 is not valid JSON');
  t.same([...stage.fail!(err, ctx)], [`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: err.message }, request_id: 'req_abc' })}\n\n`]);
  t.equal(stage.keepalive, 'event: ping\ndata: {"type": "ping"}\n\n');
  const events: CanonicalEvent[] = [{ type: 'error', error: err }];
  t.equal(runSync<string>([sseEncode()], events, ctx).join(''), [...stage.fail!(err, ctx)].join(''), 'an error event is the same frame');
  const translated: JsonObject = JSON.parse(frames(runSync<string>([sseEncode({ clientModel: 'c' })], [{ type: 'message-delta', stop: { kind: 'other', value: 'model_context_window_exceeded' }, usage: { output: 3 } }], ctx).join(''))[0]!.data) as JsonObject;
  t.same(translated, { type: 'message_delta', delta: { stop_reason: 'model_context_window_exceeded', stop_sequence: null }, usage: { output_tokens: 3 } }, 'unknown stop reasons pass through');
});
