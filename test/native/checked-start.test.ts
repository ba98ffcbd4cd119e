// The start of a stream the answer check decoded (its frames up to the first content frame) is not
// read again: what follows is read from where the check stopped. Through bin/gateway, against a
// scripted loopback upstream, the client gets what reading the whole stream from its first byte gives:
// - a byte order mark right after the first content frame is text (a line "\uFEFFdata: …" is a field
//   of another name, ignored), as it is anywhere but at the stream's start;
// - a stream whose start comes in several writes, and whose first content frame shares a write with
//   the frames after it, gives the client the same frames as the same stream written at once.
import t from 'tap';
import { send } from '../failure-modes/clients.js';
import { chatSse, delta, frame, modelId, startFm, usageChunk, type Script } from '../failure-modes/upstream.js';

const chatFrames = (model: string, contents: string[]): string =>
  chatSse(model, [delta({ role: 'assistant', content: '' }), ...contents.map((c) => delta({ content: c })), delta({}, 'stop'), usageChunk(9, 3)]);

/** role chunk, 'A', then a frame behind a BOM, then 'B', the finish and the usage */
function bomAfterContent(): string {
  const first = chatSse('c-bom', [delta({ role: 'assistant', content: '' }), delta({ content: 'A' })], false);
  const hidden = `\uFEFF${frame({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'c-bom', ...delta({ content: 'X' }) })}`;
  const rest = chatSse('c-bom', [delta({ content: 'B' }), delta({}, 'stop'), usageChunk(9, 3)]);
  return first + hidden + rest;
}

const responsesFrames = (model: string): string[] => [
  ['response.created', { response: { id: 'resp_up', object: 'response', created_at: 1, model: 'r-up', status: 'in_progress', output: [], usage: null } }],
  ['response.in_progress', { response: { id: 'resp_up', object: 'response', created_at: 1, model: 'r-up', status: 'in_progress', output: [], usage: null } }],
  ['response.output_item.added', { output_index: 0, item: { id: 'msg_up', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }],
  ['response.content_part.added', { item_id: 'msg_up', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }],
  ['response.output_text.delta', { item_id: 'msg_up', output_index: 0, content_index: 0, delta: 'Bon', logprobs: [] }],
  ['response.output_text.delta', { item_id: 'msg_up', output_index: 0, content_index: 0, delta: 'jour é😀', logprobs: [] }],
  ['response.output_text.done', { item_id: 'msg_up', output_index: 0, content_index: 0, text: 'Bonjour é😀', logprobs: [] }],
  ['response.output_item.done', { output_index: 0, item: { id: 'msg_up', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Bonjour é😀', annotations: [] }] } }],
  ['response.completed', { response: { id: 'resp_up', object: 'response', created_at: 1, model: 'r-up', status: 'completed', output: [], usage: { input_tokens: 9, output_tokens: 3, total_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } }],
].map(([type, fields], i) => frame({ type, sequence_number: i, ...(fields as object) }, type as string).replaceAll('r-up', model));

const script: Script = {
  'c-bom': { body: bomAfterContent() },
  'c-whole': { body: chatFrames('c-whole', ['Bon', 'jour']) },
  // the role chunk alone, then its content frame with the rest
  'c-split': { body: (([role, ...rest]) => [role!, rest.join('')])(chatFrames('c-split', ['Bon', 'jour']).split(/(?<=\n\n)/)), gapMs: 5 },
  'r-whole': { body: responsesFrames('r-whole').join('') },
  // each preamble frame alone (the second cut inside its data), then the first delta with everything after it
  'r-split': { body: (([created, progress, ...rest]) => [created!, progress!.slice(0, 40), progress!.slice(40) + rest[0]! + rest[1]!, rest.slice(2).join('')])(responsesFrames('r-split')), gapMs: 5 },
};

/** what a client sees of a stream, without what differs between two requests (ids, the gateway object) */
function seen(frames: { event?: string; data: string }[]): unknown[] {
  return frames.map((f) => {
    if (f.data === '[DONE]') return f.data;
    const { gateway: _g, id: _i, response, ...rest } = JSON.parse(f.data) as Record<string, unknown>;
    const r = response as Record<string, unknown> | undefined;
    return { event: f.event, ...rest, ...(r ? { response: { ...r, id: undefined, gateway: undefined } } : {}) };
  });
}

t.test('the stream start the answer check read is not read again', async (t) => {
  const { gw } = await startFm(t, script, ['c-bom', 'c-whole', 'c-split', 'r-whole', 'r-split'].map((name) => ({ name, api: name.startsWith('c') ? 'chat' : 'responses' })));

  t.test('a BOM right after the first content frame is text, not a new stream\'s mark', async (t) => {
    const a = await send(gw, 'chat', { model: modelId('c-bom'), stream: true, messages: [{ role: 'user', content: 'hi' }] });
    t.equal(a.status, 200, a.text.slice(0, 300));
    const text = a.data.map((d) => (d as { choices?: { delta?: { content?: string } }[] })?.choices?.[0]?.delta?.content ?? '').join('');
    t.equal(text, 'AB', 'the frame behind the BOM is a line of an unknown field');
    t.equal(a.frames.at(-1)?.data, '[DONE]');
  });

  for (const [api, whole, split] of [['chat', 'c-whole', 'c-split'], ['responses', 'r-whole', 'r-split']] as const) {
    t.test(`${api}: a start in several writes gives what the stream written at once gives`, async (t) => {
      const body = api === 'chat' ? { stream: true, messages: [{ role: 'user', content: 'hi' }] } : { stream: true, input: 'hi' };
      const a = await send(gw, api, { model: modelId(whole), ...body });
      const b = await send(gw, api, { model: modelId(split), ...body });
      t.equal(a.status, 200, a.text.slice(0, 300));
      t.equal(b.status, 200, b.text.slice(0, 300));
      const norm = (frames: { event?: string; data: string }[], model: string): string => JSON.stringify(seen(frames))
          .replaceAll(modelId(model), 'M')
          .replaceAll(model, 'M')
          .replace(/"msg_[0-9a-f]+_/g, '"msg_') // item ids made from the gateway's response id
          .replace(/"(created_at|completed_at)":\d+/g, '"$1":0');
      t.equal(norm(b.frames, split), norm(a.frames, whole));
      t.ok(a.frames.length > 5, 'frames were compared');
    });
  }
});
