// integrity: canonical events pass unchanged, validated usage goes out as a `usage` note before the
// event that brought it, and anything a faithful provider never sends fails closed with
// GW_ERR_INTEGRITY naming the rule. Every recorded Anthropic stream passes; then one broken rule at a
// time on a small valid stream.
import t from 'tap';
import type { CanonicalBlock, CanonicalEvent, Usage } from '../../lib/chunks.js';
import { emptyUsage } from '../../lib/chunks.js';
import { errors } from '../../lib/errors/index.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import { offlineContext } from '../../lib/offline-context.js';
import { chain } from '../../lib/stage.js';
import { integrity, sameModel } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { failed, recorded, run } from './harness.js';

const ctx = offlineContext({ reqId: 'req_integrity' });

function upstreamNote(upstreamModel: string, api: Upstream['api'] = 'messages'): ChainNote {
  const upstream: Upstream = { id: 'up', protocol: api === 'messages' ? 'anthropic' : 'openai', api, upstreamModel, stream: true, timing: { sentAt: 0 } };
  return { note: 'upstream', upstream };
}

const usage = (u: Partial<Usage>): Usage => ({ ...emptyUsage(), ...u });
const start = (model = 'claude-x', u: Partial<Usage> = { input: 10, output: 1 }): CanonicalEvent => ({ type: 'message-start', id: 'msg_1', model, usage: usage(u) });
const blockStart = (index: number, block: CanonicalBlock): CanonicalEvent => ({ type: 'block-start', index, block });
const text = (index: number, s: string): CanonicalEvent => ({ type: 'text-delta', index, text: s });
const stop = (index: number): CanonicalEvent => ({ type: 'block-stop', index });
const delta = (output: number): CanonicalEvent => ({ type: 'message-delta', stop: { kind: 'end' }, usage: { output } });
const end: CanonicalEvent = { type: 'message-stop' };
const TEXT: CanonicalBlock = { kind: 'text', text: '' };
const tool = (id: string): CanonicalBlock => ({ kind: 'tool-call', id, name: 'f', input: {} });

/** A valid stream with a text block and a tool call. */
function valid(): CanonicalEvent[] {
  return [start(), blockStart(0, TEXT), text(0, 'hi'), stop(0), blockStart(1, tool('t1')), { type: 'tool-input-delta', index: 1, json: '{"a":' }, { type: 'tool-input-delta', index: 1, json: '1}' }, stop(1), delta(5), end];
}

t.test('a valid stream: every event unchanged and in order, usage notes before message start and delta', async (t) => {
  const events = valid();
  const got = await run(integrity(), [upstreamNote('claude-x'), ...events], ctx);
  t.equal(got.error, undefined);
  t.equal(got.values.length, events.length);
  t.ok(got.values.every((ev, i) => ev === events[i]), 'the very same event objects');
  t.same(got.notes.filter((n) => n.note === 'usage'), [{ note: 'usage', usage: usage({ input: 10, output: 1 }) }, { note: 'usage', usage: usage({ input: 10, output: 5 }) }], 'cumulative usage');

  const stage = integrity();
  t.match(stage.step(events[0]!, ctx), [{ note: 'usage' }, events[0]], 'the note goes out before the event that brought it');
  t.same(stage.step(events[1]!, ctx), [events[1]], 'other events alone');
});

t.test('every recorded Anthropic stream passes, dispatched as the model (or alias) that answered it', async (t) => {
  for (const { name, bytes } of recorded('anthropic', '.sse')) {
    const answered = /"model":"([^"]+)"/.exec(bytes.toString())![1]!;
    const dispatched = answered.replace(/-\d{8}$/, '');
    const got = await run(chain(sseDecode(), providerDecode({ dialect: () => 'anthropic' }), integrity()), [upstreamNote(dispatched), bytes], ctx);
    t.equal(got.error?.message, undefined, name);
    t.ok(got.notes.some((n) => n.note === 'usage'), `${name}: usage noted`);
  }
});

t.test('each broken rule fails closed with GW_ERR_INTEGRITY and says which', async (t) => {
  const v = valid();
  const cases: [string, CanonicalEvent[], RegExp][] = [
    ['an event before message_start', [text(0, 'x'), ...v], /text-delta before message_start/],
    ['a second message_start', [v[0]!, ...v], /a second message_start/],
    ['a skipped block index', [start(), blockStart(1, TEXT)], /block 1 started, but the next index is 0/],
    ['a delta for a closed block', [start(), blockStart(0, TEXT), stop(0), text(0, 'late')], /text-delta for block 0, which is not open/],
    ['a delta of the wrong kind', [start(), blockStart(0, TEXT), { type: 'thinking-delta', index: 0, text: 'hm' }], /thinking-delta on block 0, a text block/],
    ['tool input that is not an object', [start(), blockStart(0, tool('t1')), { type: 'tool-input-delta', index: 0, json: '[1]' }, stop(0)], /tool input of block 0 is not a JSON object/],
    ['tool input that is not JSON', [start(), blockStart(0, tool('t1')), { type: 'tool-input-delta', index: 0, json: '{"a":' }, stop(0)], /tool input of block 0 is not valid JSON/],
    ['a tool call id used twice', [start(), blockStart(0, tool('t1')), stop(0), blockStart(1, tool('t1'))], /tool call id t1 is used twice/],
    ['a tool call without an id', [start(), blockStart(0, tool(''))], /tool call in block 0 has no id/],
    ['unsigned thinking', [start(), blockStart(0, { kind: 'thinking', thinking: '', signature: '' }), stop(0)], /thinking block 0 closed without a signature/],
    ['message_delta with a block open', [start(), blockStart(0, TEXT), delta(2)], /message_delta while block 0 is open/],
    ['output usage going down', [start('claude-x', { output: 5 }), delta(4)], /output usage went down from 5 to 4/],
    ['a negative usage figure', [start('claude-x', { input: -1 })], /message_start usage.input is -1, not a non-negative integer/],
    ['message_stop without message_delta', [start(), end], /message_stop without message_delta/],
    ['a block after message_delta', [start(), delta(1), blockStart(0, TEXT)], /block 0 started after message_delta/],
    ['an event after message_stop', [...v, ping()], /ping after message_stop/],
    ['a stream that ends early', v.slice(0, -1), /stream ended before message_stop/],
    ['another model answering', [start('claude-y'), ...v.slice(1)], /answered with model "claude-y", but "claude-x" was dispatched/],
  ];
  for (const [what, events, message] of cases) {
    const err = failed(await run(integrity(), [upstreamNote('claude-x'), ...events], ctx));
    t.match(err, { code: 'GW_ERR_INTEGRITY', status: 502, providerWork: true, message }, what);
  }
});

function ping(): CanonicalEvent {
  return { type: 'ping' };
}

t.test('the model check: a dated snapshot of the dispatched alias passes; the options replace the check', async (t) => {
  t.ok(sameModel('claude-haiku-4-5', 'claude-haiku-4-5-20251001'));
  t.ok(sameModel('gpt-4o', 'gpt-4o-2024-08-06'));
  t.notOk(sameModel('gpt-4o', 'gpt-4o-mini'));
  t.equal((await run(integrity(), [upstreamNote('claude-x'), start('claude-x-20250101'), ...valid().slice(1)], ctx)).error, undefined);
  t.equal((await run(integrity(), valid(), ctx)).error, undefined, 'no upstream note, no model to check');
  const loose = integrity({ expectedModel: () => 'a', modelMatches: () => true });
  t.equal((await run(loose, valid(), ctx)).error, undefined, 'modelMatches decides');
  const strict = integrity({ expectedModel: () => 'other' });
  t.match(failed(await run(strict, [upstreamNote('claude-x'), ...valid()], ctx)), { message: /but "other" was dispatched/ }, 'expectedModel wins over the note');
});

t.test('an upstream error event is terminal: it passes, what follows is dropped, the end is not checked', async (t) => {
  const error: CanonicalEvent = { type: 'error', error: errors.integrity('upstream said no', undefined) };
  const got = await run(integrity(), [start(), blockStart(0, TEXT), error, text(0, 'after'), end], ctx);
  t.equal(got.error, undefined);
  t.same(got.values.map((e) => e.type), ['message-start', 'block-start', 'error']);
});

t.test('a tool call cut by the token limit (F5): its stop held, then dropped before a length message_delta', async (t) => {
  const cut: CanonicalEvent[] = [start(), blockStart(0, TEXT), text(0, 'hi'), stop(0), blockStart(1, tool('t1')), { type: 'tool-input-delta', index: 1, json: '{"a":"b' }];
  const length = (stop: 'length' | 'tool-calls' | 'end'): CanonicalEvent => ({ type: 'message-delta', stop: { kind: stop }, usage: { output: 9 } });
  const types = (vs: readonly CanonicalEvent[]): string[] => vs.map((e) => e.type + (e.type === 'message-delta' ? `:${e.stop?.kind}` : ''));

  const got = await run(integrity(), [...cut, stop(1), length('length'), end], ctx);
  t.equal(got.error, undefined);
  t.same(types(got.values), ['message-start', 'block-start', 'text-delta', 'block-stop', 'block-start', 'tool-input-delta', 'message-delta:length', 'message-stop'], 'the cut block never stops');

  const vllm = await run(integrity(), [...cut, stop(1), length('tool-calls'), end], ctx);
  t.equal(vllm.error, undefined);
  t.same(types(vllm.values).slice(-2), ['message-delta:length', 'message-stop'], "vLLM's tool_calls on a cut turn becomes length");

  const open = await run(integrity(), [...cut, length('length'), end], ctx);
  t.equal(open.error, undefined, "Anthropic's shape: the block still open at a length message_delta");
  t.same(types(open.values).slice(-2), ['message-delta:length', 'message-stop']);

  const error: CanonicalEvent = { type: 'error', error: errors.integrity('upstream said no', undefined) };
  const failedUp = await run(integrity(), [...cut, stop(1), error], ctx);
  t.equal(failedUp.error, undefined, 'an upstream error after the held stop is the answer (not the held one)');
  t.same(types(failedUp.values).slice(-1), ['error']);

  for (const [what, rest] of [
    ['a natural end', [length('end'), end]],
    ['another block', [blockStart(2, TEXT)]],
    ['the end of the stream', []],
  ] as [string, CanonicalEvent[]][]) {
    t.match(failed(await run(integrity(), [...cut, stop(1), ...rest], ctx)), { code: 'GW_ERR_INTEGRITY', message: /tool input of block 1 is not valid JSON/ }, `after the held stop: ${what}`);
  }
  t.match(failed(await run(integrity(), [...cut, length('end'), end], ctx)), { message: /message_delta while block 1 is open/ }, 'an open block at a natural end');
  const bad = [start(), blockStart(0, tool('t1')), { type: 'tool-input-delta', index: 0, json: '{"a":1}}' } as CanonicalEvent, stop(0), length('length'), end];
  t.match(failed(await run(integrity(), bad, ctx)), { message: /tool input of block 0 is not valid JSON/ }, 'JSON broken before its end is not a cut');
});

t.test('an earlier call cut, a later one whole (F5 with parallel calls): the other calls go on until the length message_delta', async (t) => {
  const input = (index: number, json: string): CanonicalEvent => ({ type: 'tool-input-delta', index, json });
  const length: CanonicalEvent = { type: 'message-delta', stop: { kind: 'length' }, usage: { output: 9 } };
  const types = (vs: readonly CanonicalEvent[]): string[] => vs.map((e) => e.type + ('index' in e ? `:${e.index}` : ''));
  // interleaved pieces, stops at the end (a Chat stream's decoder), and one call after the other (a JSON answer)
  const interleaved = [start(), blockStart(0, tool('t0')), input(0, '{"a":"b'), blockStart(1, tool('t1')), input(1, '{"a":1}'), stop(0), stop(1), length, end];
  const sequential = [start(), blockStart(0, tool('t0')), input(0, '{"a":"b'), stop(0), blockStart(1, tool('t1')), input(1, '{"a":1}'), stop(1), length, end];
  for (const [what, events] of [['interleaved', interleaved], ['one after the other', sequential]] as const) {
    const got = await run(integrity(), [...events], ctx);
    t.equal(got.error, undefined, what);
    t.notOk(types(got.values).includes('block-stop:0'), `${what}: the cut call never stops`);
    t.ok(types(got.values).includes('block-stop:1'), `${what}: the whole one does`);
  }
  const vllm = await run(integrity(), [...interleaved.slice(0, -2), { type: 'message-delta', stop: { kind: 'tool-calls' }, usage: { output: 9 } }, end], ctx);
  t.equal(vllm.error, undefined, "vLLM's tool_calls on that turn");
  t.match(failed(await run(integrity(), [...sequential.slice(0, -2), { ...length, stop: { kind: 'end' } }, end], ctx)), { message: /tool input of block 0 is not valid JSON/ }, 'a natural end after them: the held error');
  t.match(failed(await run(integrity(), [...sequential.slice(0, 4), blockStart(1, TEXT)], ctx)), { message: /tool input of block 0 is not valid JSON/ }, 'a text block after the cut call: the held error');
  t.match(failed(await run(integrity(), [...sequential.slice(0, 4), input(0, '"}')], ctx)), { message: /block 0, which is not open/ }, 'nothing more for the cut call');
});

t.test('a whole tool call, the last block at the token limit (F5): its stop held until the next event, dropped before a length message_delta', async (t) => {
  const call: CanonicalEvent[] = [start(), blockStart(0, TEXT), text(0, 'hi'), stop(0), blockStart(1, tool('t1')), { type: 'tool-input-delta', index: 1, json: '{"a":1}' }, stop(1)];
  const md = (kind: 'length' | 'tool-calls' | 'end'): CanonicalEvent => ({ type: 'message-delta', stop: { kind }, usage: { output: 9 } });
  const types = (vs: readonly CanonicalEvent[]): string[] => vs.map((e) => e.type + ('index' in e ? `:${e.index}` : ''));

  const cut = await run(integrity(), [...call, ping(), md('length'), end], ctx);
  t.equal(cut.error, undefined);
  t.same(types(cut.values).slice(-4), ['tool-input-delta:1', 'ping', 'message-delta', 'message-stop'], 'at length the call never stops; a ping passes meanwhile');
  for (const kind of ['tool-calls', 'end'] as const) {
    const whole = await run(integrity(), [...call, md(kind), end], ctx);
    t.equal(whole.error, undefined);
    t.same(types(whole.values).slice(-3), ['block-stop:1', 'message-delta', 'message-stop'], `${kind}: the stop goes out just before the message_delta`);
  }
  const later = await run(integrity(), [...call, blockStart(2, TEXT), text(2, 'then'), stop(2), md('length'), end], ctx);
  t.equal(later.error, undefined);
  t.same(types(later.values).slice(6, 9), ['block-stop:1', 'block-start:2', 'text-delta:2'], 'a later block: the call was whole, its stop before that block');
  const error: CanonicalEvent = { type: 'error', error: errors.integrity('upstream said no', undefined) };
  t.same(types((await run(integrity(), [...call, error], ctx)).values).slice(-2), ['block-stop:1', 'error'], 'an upstream error: the stop, then the error');
  t.match(failed(await run(integrity(), [...call, { type: 'tool-input-delta', index: 1, json: ' ' }], ctx)), { message: /block 1, which is not open/ }, 'nothing more for the stopped call');
  t.match(failed(await run(integrity(), call, ctx)), { message: /stream ended before message_stop/ }, 'the end of the stream');
  const two = [start(), blockStart(0, tool('t0')), { type: 'tool-input-delta', index: 0, json: '{}' } as CanonicalEvent, blockStart(1, tool('t1')), stop(0), stop(1), md('length'), end];
  const parallel = await run(integrity(), two, ctx);
  t.same(types(parallel.values).filter((x) => x.startsWith('block-stop')), ['block-stop:0'], 'open at once: only the last block is cut');
  // the upstream's own word decides, not which API it speaks: a stop marked complete (a Responses item's done event) passes
  const marked = [...call.slice(0, -1), { type: 'block-stop', index: 1, complete: true } as CanonicalEvent];
  for (const api of ['responses', 'chat'] as const) {
    const whole = await run(integrity(), [upstreamNote('claude-x', api), ...marked, md('length'), end], ctx);
    t.same(types(whole.values).slice(-3), ['block-stop:1', 'message-delta', 'message-stop'], `a ${api} upstream, the stop marked complete: the call is whole`);
  }
  const unmarked = await run(integrity(), [upstreamNote('claude-x', 'responses'), ...call, md('length'), end], ctx);
  t.same(types(unmarked.values).slice(-3), ['tool-input-delta:1', 'message-delta', 'message-stop'], 'a Responses upstream, the stop unmarked (never said done): cut as any other');
});
