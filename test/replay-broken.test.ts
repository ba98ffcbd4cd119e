// Broken upstream responses fail closed with GW_ERR_INTEGRITY and a precise message, under every
// chunking; upstream `error` events (errors/*.sse) pass through as the client's error frame.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { fixture } from './helpers/paths.js';
import { CHUNKINGS, chunk, decode, encodeJson, encodeSse, lastUsage, type DecodeOptions } from './helpers/replay.js';
import type { ChainNote } from '../lib/notes.js';

type Ev = [string, string | object];
const sse = (events: Ev[]): Buffer =>
  Buffer.from(events.map(([name, data]) => `event: ${name}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join(''));

const message = (extra: object = {}, usage: object = { input_tokens: 10, output_tokens: 1 }) => ({
  id: 'msg_1', type: 'message', role: 'assistant', model: 'm-1', content: [], stop_reason: null, stop_sequence: null, usage, ...extra,
});
const START: Ev = ['message_start', { type: 'message_start', message: message() }];
const startWith = (extra: object, usage?: object): Ev => ['message_start', { type: 'message_start', message: message(extra, usage) }];
const block = (index: number, content_block: object): Ev => ['content_block_start', { type: 'content_block_start', index, content_block }];
const TEXT_START = (i: number): Ev => block(i, { type: 'text', text: '' });
const TOOL_START = (i: number, id: string): Ev => block(i, { type: 'tool_use', id, name: 'f', input: {} });
const THINK_START = (i: number): Ev => block(i, { type: 'thinking', thinking: '', signature: '' });
const delta = (index: number, d: object): Ev => ['content_block_delta', { type: 'content_block_delta', index, delta: d }];
const TEXT = (i: number, text: string): Ev => delta(i, { type: 'text_delta', text });
const JSON_DELTA = (i: number, partial_json: string): Ev => delta(i, { type: 'input_json_delta', partial_json });
const SIG = (i: number, signature: string): Ev => delta(i, { type: 'signature_delta', signature });
const STOP = (index: number): Ev => ['content_block_stop', { type: 'content_block_stop', index }];
const DELTA = (usage: object = { output_tokens: 5 }): Ev => ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage }];
const END: Ev = ['message_stop', { type: 'message_stop' }];

async function failsClosed(t: Test, input: Buffer, message: RegExp, opts: DecodeOptions = {}): Promise<void> {
  for (const how of CHUNKINGS) {
    await t.rejects(decode(chunk(input, how, 7), opts), { code: 'GW_ERR_INTEGRITY', message }, how);
  }
}

t.test('a well-formed synthetic stream passes', async (t) => {
  const input = sse([START, TEXT_START(0), TEXT(0, 'hi'), STOP(0), TOOL_START(1, 't1'), JSON_DELTA(1, '{"a":'), JSON_DELTA(1, '1}'), STOP(1), THINK_START(2), SIG(2, 'sig'), STOP(2), DELTA(), END]);
  for (const how of CHUNKINGS) {
    const { events, usage } = await decode(chunk(input, how, 3));
    t.equal(events.length, 13, how);
    t.match(usage, { input: 10, output: 5 });
  }
});

const BROKEN: [string, Ev[], RegExp][] = [
  ['block index out of order', [START, TEXT_START(1)], /block 1 started, but the next index is 0/],
  ['block index skipped', [START, TEXT_START(0), STOP(0), TEXT_START(2)], /block 2 started, but the next index is 1/],
  ['block left open at message_delta', [START, TEXT_START(0), TEXT(0, 'a'), DELTA(), END], /message_delta while block 0 is open/],
  ['delta for a closed block', [START, TEXT_START(0), STOP(0), TEXT(0, 'x')], /text-delta for block 0, which is not open/],
  ['stop for a block never opened', [START, STOP(0)], /block-stop for block 0, which is not open/],
  ['missing message_stop', [START, TEXT_START(0), STOP(0), DELTA()], /stream ended before message_stop/],
  ['empty body', [], /stream ended before message_stop/],
  ['bad tool JSON', [START, TOOL_START(0, 't1'), JSON_DELTA(0, '{"a":'), STOP(0)], /tool input of block 0 is not valid JSON/],
  ['tool JSON not an object', [START, TOOL_START(0, 't1'), JSON_DELTA(0, '[1,2]'), STOP(0)], /tool input of block 0 is not a JSON object/],
  ['tool JSON with duplicate keys', [START, TOOL_START(0, 't1'), JSON_DELTA(0, '{"a":1,"a":2}'), STOP(0)], /tool input of block 0 is not valid JSON/],
  ['signature_delta on a text block', [START, TEXT_START(0), SIG(0, 'x')], /signature-delta on block 0, a text block/],
  ['text_delta on a tool_use block', [START, TOOL_START(0, 't1'), TEXT(0, 'x')], /text-delta on block 0, a tool-call block/],
  ['thinking without a signature', [START, THINK_START(0), delta(0, { type: 'thinking_delta', thinking: 'hm' }), STOP(0)], /thinking block 0 closed without a signature/],
  ['data.type differs from the event name', [START, ['content_block_delta', { type: 'content_block_stop', index: 0 }]], /content_block_delta data.type is "content_block_stop", expected "content_block_delta"/],
  ['second message_start', [START, START], /a second message_start/],
  ['event after message_stop', [START, DELTA(), END, TEXT_START(0)], /block-start after message_stop/],
  ['duplicate tool ids', [START, TOOL_START(0, 't1'), STOP(0), TOOL_START(1, 't1')], /tool call id t1 is used twice/],
  ['tool call without id', [START, block(0, { type: 'tool_use', name: 'f', input: {} })], /tool call in block 0 has no id/],
  ['output usage going down', [startWith({}, { input_tokens: 1, output_tokens: 10 }), DELTA({ output_tokens: 5 })], /output usage went down from 10 to 5/],
  ['negative usage', [START, DELTA({ output_tokens: -1 })], /usage.output is -1, not a non-negative integer/],
  ['fractional usage', [startWith({}, { input_tokens: 1.5, output_tokens: 1 })], /usage.input is 1.5, not a non-negative integer/],
  ['usage that is not a number', [START, DELTA({ output_tokens: '5' })], /message_delta.usage.output_tokens must be a number/],
  ['delta before message_start', [TEXT_START(0)], /block-start before message_start/],
  ['message_stop without message_delta', [START, END], /message_stop without message_delta/],
  ['gateway field in the envelope', [startWith({ gateway: { routed: true } })], /message_start.message.gateway collides/],
  ['content in message_start', [['message_start', { type: 'message_start', message: { ...message(), content: [{ type: 'text', text: 'x' }] } }]], /content must be empty/],
  ['data that is not an object', [['ping', '[]']], /ping data: expected a JSON object/],
  ['block-start after message_delta', [START, DELTA(), TEXT_START(0)], /block 0 started after message_delta/],
];

for (const [name, events, message] of BROKEN) {
  t.test(name, async (t) => failsClosed(t, sse(events), message));
}

t.test('malformed JSON in data', async (t) => {
  const raw = (name: string, data: string): Buffer => Buffer.from(`event: ${name}\ndata: ${data}\n\n`);
  const start = sse([START, TEXT_START(0)]);
  await failsClosed(t, Buffer.concat([start, raw('content_block_delta', '{"type":"content_block_delta","index":0,"index":0,"delta":{"type":"text_delta","text":"a"}}')]), /content_block_delta data: invalid JSON at index: duplicate key "index"/);
  await failsClosed(t, Buffer.concat([start, sse([STOP(0)]), raw('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":NaN}}')]), /message_delta data: invalid JSON at usage.output_tokens: NaN/);
  await failsClosed(t, Buffer.concat([start, sse([STOP(0)]), raw('message_delta', '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1e999}}')]), /message_delta data: invalid JSON at usage.output_tokens: .*not finite/);
  await failsClosed(t, Buffer.from('data: {"type":"message_start"}\n\n'), /SSE message without an event name/);
});

t.test('limits and encoding', async (t) => {
  const big = sse([START, TEXT_START(0), TEXT(0, 'x'.repeat(5000)), STOP(0), DELTA(), END]);
  await failsClosed(t, big, /an event exceeds the maximum size of 1000 characters/, { maxEventSize: 1000 });
  const bad = Buffer.concat([sse([START, TEXT_START(0)]), Buffer.from('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\xff"}}\n\n', 'latin1')]);
  await failsClosed(t, bad, /the event stream is not valid UTF-8/);
});

t.test('validated usage went on as a usage note when the stream fails later', async (t) => {
  const input = sse([startWith({}, { input_tokens: 40, output_tokens: 2, cache_read_input_tokens: 7 }), TEXT_START(0), TEXT(0, 'a')]);
  const notes: ChainNote[] = [];
  await t.rejects(decode([input], { notes }), { message: /stream ended before message_stop/ });
  t.same(lastUsage(notes), { input: 40, output: 2, cacheRead: 7, cacheWrite: 0, reasoning: 0, webSearches: 0 });
});

t.test('non-streaming message checks', async (t) => {
  const good = { ...message(), content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' };
  const body = (o: object): Buffer => Buffer.from(JSON.stringify(o));
  await decode([body(good)]);
  await failsClosed(t, body({ ...good, gateway: {} }), /message.gateway collides/);
  const { id: _id, ...noId } = good;
  await failsClosed(t, body(noId), /message.id must be a string/);
  await failsClosed(t, body({ ...good, type: 'completion' }), /message.type must be "message"/);
  await failsClosed(t, body({ ...good, content: {} }), /message.content must be an array/);
  await failsClosed(t, body({ ...good, stop_reason: null }), /message.stop_reason must be a string/);
  await failsClosed(t, body({ ...good, usage: { input_tokens: 1.5, output_tokens: 1 } }), /message.usage.input_tokens must be a non-negative integer/);
  await failsClosed(t, body({ ...good, usage: { input_tokens: 1 } }), /message.usage.output_tokens must be a non-negative integer/);
  await failsClosed(t, body({ ...good, content: [{ type: 'tool_use', id: 't', name: 'f', input: [1] }] }), /message.content\[0\].input must be an object/);
  await failsClosed(t, Buffer.from('{"id":"a","id":"b"}'), /message: invalid JSON at id/);
  await failsClosed(t, body({ ...good, model: 'm-2' }), /answered with model "m-2", but "m-1" was dispatched/, { expectedModel: () => 'm-1' });
});

t.test('body mode: JSON after whitespace, forced modes, CRLF framing, comments', async (t) => {
  const msg = Buffer.from(`\n  ${readFileSync(fixture('upstream', 'anthropic', 'text-basic.json'), 'utf8')}`);
  for (const how of CHUNKINGS) t.equal((await decode(chunk(msg, how, 5))).events.length, 5, `auto: ${how}`);
  const stream = readFileSync(fixture('upstream', 'anthropic', 'text-basic.sse'));
  const upstream = (s: boolean) => ({ id: 'p', protocol: 'anthropic', api: 'messages', upstreamModel: 'claude-haiku-4-5', stream: s, timing: { sentAt: 0 } }) as const;
  await t.rejects(decode([stream], { upstream: upstream(false) }), { message: /message: invalid JSON/ }, 'provider said JSON');
  await t.rejects(decode([msg], { mode: () => 'sse' }), { message: /stream ended before message_stop/ }, 'forced SSE on a JSON body');
  const lf = (await decode([stream])).events;
  const crlf = Buffer.from(stream.toString('utf8').replaceAll('\n', '\r\n'));
  for (const how of CHUNKINGS) t.same((await decode(chunk(crlf, how, 9))).events.map((e) => e.type), lf.map((e) => e.type), `CRLF: ${how}`);
  const commented = Buffer.from(`: hello\nretry: 100\n\n${stream.toString('utf8').replace('event: ping', 'id: 7\nevent: ping')}`);
  t.equal((await decode([commented])).events.length, lf.length, 'comments, id and retry lines are ignored');
});

t.test('mid-stream upstream errors (errors/*.sse)', async (t) => {
  const tail = readFileSync(fixture('upstream', 'errors', 'anthropic-200-midstream-api_error.tail.sse'));
  await failsClosed(t, tail, /integrity check: text-delta before message_start$/);

  const whole = Buffer.concat([sse([startWith({ model: 'claude-x' }), TEXT_START(0)]), tail]);
  for (const how of CHUNKINGS) {
    const { events, ctx } = await decode(chunk(whole, how, 11));
    const last = events.at(-1)!;
    t.equal(last.type, 'error', `${how}: ends with the upstream error`);
    if (last.type !== 'error') continue;
    t.match(last.error, { code: 'GW_ERR_UPSTREAM', upstream: { protocol: 'anthropic', type: 'api_error', message: 'Internal server error' } });
    const out = await encodeSse(events, undefined, ctx);
    t.ok(out.endsWith('event: error\ndata: {"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_test"}\n\n'), 'error frame with the gateway request id');
    t.ok(out.includes('data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" ("} }\n\n'), 'deltas before it pass byte for byte');
    await t.rejects(encodeJson(events), { code: 'GW_ERR_UPSTREAM', message: 'Internal server error' }, 'non-streaming: the error is thrown');
  }

  const frame = readFileSync(fixture('upstream', 'errors', 'anthropic-200-midstream-overloaded_error.frame.sse'));
  const { events } = await decode([frame]);
  t.match(events, [{ type: 'error', error: { code: 'GW_ERR_UPSTREAM_OVERLOADED', upstream: { type: 'overloaded_error', message: 'Overloaded' } } }]);
  t.equal(await encodeSse(events), 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_test"}\n\n');

  const after = Buffer.concat([frame, sse([START, DELTA(), END])]);
  t.equal((await decode([after])).events.length, 1, 'events after an upstream error are dropped');
});
