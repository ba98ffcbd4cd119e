// The Responses decoder's edge cases on hand-built streams and bodies: multi-part summaries,
// reasoning without encrypted content, late arguments, incomplete reasons, unknown events, strict
// JSON and ordering failures.
import t, { type Test } from 'tap';
import type { CanonicalEvent } from '../../../lib/chunks.js';
import { ResponsesStreamDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { decodeResponsesBody } from '../../../lib/dialects/openai-responses/message.js';
import { reasoningInputItem } from '../../../lib/translate/reasoning-state.js';
import { GatewayError } from '../../../lib/errors.js';
import { CHUNKINGS, chunk } from '../../helpers/replay.js';
import { accumulate, decodeChunks } from './harness.js';

type Obj = Record<string, unknown>;
type Ev = [string, Obj];

const USAGE = { input_tokens: 20, input_tokens_details: { cached_tokens: 5 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 10 }, total_tokens: 50 };
const RESP = { id: 'resp_1', object: 'response', model: 'gpt-5-up', status: 'in_progress', output: [], usage: null };

function stream(events: Ev[]): Buffer {
  let seq = 0;
  return Buffer.from(events.map(([type, f]) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...f })}\n\n`).join(''));
}

const created: Ev = ['response.created', { response: RESP }];
const completed = (output: Obj[] = [], extra: Obj = {}): Ev => ['response.completed', { response: { ...RESP, status: 'completed', output, usage: USAGE, ...extra } }];

function decodeAll(t: Test, events: Ev[]): CanonicalEvent[] {
  const bytes = stream(events);
  const whole = decodeChunks([bytes], 'sse');
  for (const how of CHUNKINGS) t.same(decodeChunks(chunk(bytes, how, 7), 'sse'), whole, `${how} = whole`);
  return whole;
}

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (GatewayError.is(err)) return err;
    throw err;
  }
  throw new Error('nothing thrown');
}

const RS = { id: 'rs_1', type: 'reasoning', encrypted_content: 'gAAAA:enc+/=', summary: [] };
const PART_A = '**Plan**\n\nfirst part';
const PART_B = 'second';

t.test('a multi-part summary: "\\n\\n" between parts, the lengths in the signature, parts rebuilt exactly', async (t) => {
  const done = { ...RS, summary: [{ type: 'summary_text', text: PART_A }, { type: 'summary_text', text: PART_B }] };
  const at = { item_id: 'rs_1', output_index: 0 };
  const got = accumulate(decodeAll(t, [
    created,
    ['response.output_item.added', { output_index: 0, item: RS }],
    ['response.reasoning_summary_part.added', { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } }],
    ['response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta: '**Plan**\n\n' }],
    ['response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta: 'first part' }],
    ['response.reasoning_summary_part.added', { ...at, summary_index: 1, part: { type: 'summary_text', text: '' } }],
    ['response.reasoning_summary_text.delta', { ...at, summary_index: 1, delta: PART_B }],
    ['response.output_item.done', { output_index: 0, item: done }],
    completed([done]),
  ]));
  t.equal(got.blocks[0]!.text, `${PART_A}\n\n${PART_B}`);
  t.equal(got.blocks[0]!.signature, `oai-rs:rs_1:${PART_A.length},${PART_B.length}:gAAAA:enc+/=`);
  t.equal(JSON.stringify(reasoningInputItem(got.blocks[0]!.text, got.blocks[0]!.signature)), JSON.stringify({ id: 'rs_1', type: 'reasoning', encrypted_content: 'gAAAA:enc+/=', summary: done.summary }));
  t.same(got.usage, { input: 15, output: 30, cacheRead: 5, cacheWrite: 0, reasoning: 10, webSearches: 0 });
});

t.test('reasoning without encrypted_content is an opaque block, never an unsigned thinking block', async (t) => {
  const plain = { id: 'rs_2', type: 'reasoning', summary: [{ type: 'summary_text', text: 'hidden' }] };
  const got = accumulate(decodeAll(t, [
    created,
    ['response.output_item.added', { output_index: 0, item: { ...plain, summary: [] } }],
    ['response.reasoning_summary_text.delta', { item_id: 'rs_2', output_index: 0, summary_index: 0, delta: 'hidden' }],
    ['response.output_item.done', { output_index: 0, item: plain }],
    ['response.output_item.added', { output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }],
    ['response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Hi' }],
    ['response.output_item.done', { output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] } }],
    completed(),
  ]));
  t.same(got.blocks.map((b) => b.kind), ['opaque', 'text']);
  t.same(got.blocks[0]!.value, plain);
  t.equal(got.blocks[1]!.text, 'Hi', 'a text delta without content_part.added opens the block');
});

t.test('a function call whose arguments only the done item carries; unknown events are ignored', async (t) => {
  const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '' };
  const events = decodeAll(t, [
    created,
    ['response.in_progress', { response: RESP }],
    ['response.output_item.added', { output_index: 0, item: call }],
    ['response.future_event.delta', { output_index: 0, delta: 'x' }],
    ['response.output_item.done', { output_index: 0, item: { ...call, arguments: '{"a":1}' } }],
    completed(),
  ]);
  const got = accumulate(events);
  t.same([got.blocks[0]!.id, got.blocks[0]!.name, got.blocks[0]!.json], ['call_1', 'f', '{"a":1}']);
  t.same(got.stop, { kind: 'tool-calls' });
  t.equal(events.filter((e) => e.type === 'message-start').length, 1, 'in_progress does not start twice');
  t.ok(events.every((e) => e.native?.dialect === 'openai-responses'), 'native frames kept');
});

t.test('incomplete reasons and a thinking block cut short', async (t) => {
  const filtered = accumulate(decodeAll(t, [created, ['response.incomplete', { response: { ...RESP, status: 'incomplete', incomplete_details: { reason: 'content_filter' }, usage: USAGE } }]]));
  t.same(filtered.stop, { kind: 'content-filter' });
  const cut = accumulate(decodeAll(t, [
    created,
    ['response.output_item.added', { output_index: 0, item: RS }],
    ['response.reasoning_summary_text.delta', { item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'so' }],
    ['response.incomplete', { response: { ...RESP, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ ...RS, summary: [{ type: 'summary_text', text: 'so' }] }], usage: USAGE } }],
  ]));
  t.same(cut.stop, { kind: 'length' });
  t.equal(cut.blocks[0]!.signature, 'oai-rs:rs_1:2:gAAAA:enc+/=', 'signed from the terminal Response');
});

t.test('a reasoning item that loses its encrypted content stays signed but is not sent back', async (t) => {
  const got = accumulate(decodeAll(t, [
    created,
    ['response.output_item.added', { output_index: 0, item: RS }],
    ['response.output_item.done', { output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }],
    completed(),
  ]));
  t.equal(got.blocks[0]!.signature, 'oai-rs:rs_1::');
  t.equal(reasoningInputItem('', got.blocks[0]!.signature), null);
});

t.test('response.failed alone is an error event', async (t) => {
  const events = decodeAll(t, [created, ['response.failed', { response: { ...RESP, status: 'failed', error: { code: 'server_error', message: 'boom' } } }]]);
  const last = events[events.length - 1]!;
  t.equal(last.type, 'error');
  if (last.type === 'error') t.match(last.error.upstream, { protocol: 'openai', status: 500, type: 'server_error', message: 'boom' });
});

t.test('malformed or out-of-order frames fail closed (GW_ERR_INTEGRITY)', async (t) => {
  const cases: [string, { event: string | undefined; data: string }[]][] = [
    ['duplicate keys', [{ event: 'response.created', data: '{"type":"response.created","type":"x"}' }]],
    ['NaN', [{ event: 'response.created', data: '{"type":"response.created","sequence_number":NaN}' }]],
    ['event name ≠ data.type', [{ event: 'response.completed', data: '{"type":"response.created","response":{"id":"r"}}' }]],
    ['sequence_number going back', [
      { event: 'response.created', data: '{"type":"response.created","sequence_number":3,"response":{"id":"r","model":"m"}}' },
      { event: 'response.in_progress', data: '{"type":"response.in_progress","sequence_number":3,"response":{"id":"r"}}' },
    ]],
    ['an item before response.created', [{ event: undefined, data: '{"type":"response.output_item.added","output_index":0,"item":{"type":"message"}}' }]],
    ['a function call without call_id', [
      { event: undefined, data: '{"type":"response.created","response":{"id":"r","model":"m"}}' },
      { event: undefined, data: '{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","name":"f"}}' },
    ]],
  ];
  for (const [name, msgs] of cases) {
    const decoder = new ResponsesStreamDecoder();
    const err = thrown(() => msgs.forEach((m) => decoder.sse(m)));
    t.equal(err.code, 'GW_ERR_INTEGRITY', name);
  }
  const usage = { ...USAGE, input_tokens: 2 };
  t.equal(thrown(() => decodeResponsesBody(JSON.stringify({ ...RESP, status: 'completed', usage }))).code, 'GW_ERR_INTEGRITY', 'cached > input');
  t.equal(thrown(() => decodeResponsesBody(JSON.stringify({ ...RESP, status: 'completed' }))).code, 'GW_ERR_INTEGRITY', 'no usage');
});

t.test('a failed Response object is an error event', async (t) => {
  const events = decodeResponsesBody(JSON.stringify({ ...RESP, status: 'failed', error: { code: 'rate_limit_exceeded', message: 'slow down' } }));
  t.same(events.map((e) => e.type), ['error']);
  if (events[0]!.type === 'error') t.match(events[0]!.error, { code: 'GW_ERR_UPSTREAM', status: 502, upstream: { status: 429, type: 'rate_limit_exceeded' } });
});
