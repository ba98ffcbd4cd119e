// The upstream Chat Completions decoder: every recorded fixture through sse-decode → provider-decode
// → integrity, fed whole, byte by byte and in seeded random chunks (same events every time), with
// text, tool calls, stop reason and usage checked against the fixture; then the decoder's edge cases.
import { readFileSync, readdirSync } from 'node:fs';
import t from 'tap';
import type { CanonicalEvent, Usage } from '../../../lib/chunks.js';
import { ChatStreamDecoder } from '../../../lib/dialects/openai-chat/events.js';
import { decodeChatCompletion } from '../../../lib/dialects/openai-chat/message.js';
import { GatewayError } from '../../../lib/errors.js';
import { eventToJson } from '../../../lib/offline-context.js';
import { fixture } from '../../helpers/paths.js';
import { CHUNKINGS, chunk, seedOf } from '../../helpers/replay.js';
import { accumulateChat, chatContext, decodeWith } from './harness.js';

type Obj = Record<string, unknown>;
const DIR = fixture('upstream', 'openai-chat');
const files = readdirSync(DIR).filter((f) => f.endsWith('.sse') || f.endsWith('.json')).sort();

/** What the fixture itself says, read without the gateway's decoder. */
function expected(name: string): { text: string; tools: { id: string; name: string; arguments: string }[]; finish: string; usage: Obj } {
  const raw = readFileSync(`${DIR}/${name}`, 'utf8');
  if (name.endsWith('.sse')) {
    const acc = accumulateChat(raw);
    return { text: acc.content + acc.refusal, tools: acc.toolCalls, finish: acc.finishReason!, usage: acc.usage as Obj };
  }
  const body = JSON.parse(raw) as Obj;
  const choice = (body.choices as Obj[])[0]!;
  const message = choice.message as Obj;
  const tools = ((message.tool_calls as Obj[] | undefined) ?? []).map((c) => {
    const fn = c.function as Obj;
    return { id: c.id as string, name: fn.name as string, arguments: fn.arguments as string };
  });
  return { text: String(message.content ?? '') + String(message.refusal ?? ''), tools, finish: choice.finish_reason as string, usage: body.usage as Obj };
}

/** Text, tool calls, stop and usage as the canonical events carry them. */
function collected(events: CanonicalEvent[]): { text: string; tools: { id: string; name: string; arguments: string }[]; stop: unknown; usage: Partial<Usage> } {
  let text = '';
  const tools: { id: string; name: string; arguments: string }[] = [];
  const byIndex = new Map<number, { id: string; name: string; arguments: string }>();
  let stop: unknown;
  let usage: Partial<Usage> = {};
  for (const ev of events) {
    if (ev.type === 'block-start' && ev.block.kind === 'text') text += ev.block.text;
    if (ev.type === 'text-delta') text += ev.text;
    if (ev.type === 'block-start' && ev.block.kind === 'tool-call') {
      const call = { id: ev.block.id, name: ev.block.name, arguments: '' };
      tools.push(call);
      byIndex.set(ev.index, call);
    }
    if (ev.type === 'tool-input-delta') byIndex.get(ev.index)!.arguments += ev.json;
    if (ev.type === 'message-delta') {
      stop = ev.stop;
      usage = ev.usage;
    }
  }
  return { text, tools, stop, usage };
}

const STOP: Record<string, string> = { stop: 'end', length: 'length', tool_calls: 'tool-calls', content_filter: 'content-filter' };

for (const name of files) {
  t.test(name, async (t) => {
    const bytes = readFileSync(`${DIR}/${name}`);
    const runs = CHUNKINGS.map((how) => {
      const ctx = chatContext();
      const events = decodeWith(chunk(bytes, how, seedOf(name)), 'openai-chat', ctx);
      return { how, events, ctx };
    });
    const reference = JSON.stringify(runs[0]!.events.map(eventToJson));
    for (const run of runs.slice(1)) t.equal(JSON.stringify(run.events.map(eventToJson)), reference, `${run.how}: the same events as whole`);

    const { events, ctx } = runs[0]!;
    const want = expected(name);
    const got = collected(events);
    t.equal(got.text, want.text, 'text (content and refusal)');
    t.same(got.tools, want.tools, 'tool calls: ids, names, arguments byte for byte');
    t.same(got.stop, { kind: STOP[want.finish] }, `stop reason from finish_reason ${want.finish}`);
    const prompt = want.usage.prompt_tokens as number;
    const cached = ((want.usage.prompt_tokens_details as Obj | undefined)?.cached_tokens as number | undefined) ?? 0;
    const reasoning = ((want.usage.completion_tokens_details as Obj | undefined)?.reasoning_tokens as number | undefined) ?? 0;
    const usage: Usage = { input: prompt - cached, output: want.usage.completion_tokens as number, cacheRead: cached, cacheWrite: 0, reasoning, webSearches: 0 };
    t.same(got.usage, usage, 'message-delta usage');
    t.same(ctx.input.usage, usage, 'integrity output the validated usage as a note');

    const start = events[0]!;
    t.equal(start.type, 'message-start');
    if (start.type === 'message-start') {
      t.match(start.id, /^chatcmpl-/);
      t.match(start.model, /^gpt-/);
      t.same(start.usage, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 });
    }
    t.equal(events.at(-1)!.type, 'message-stop');
    for (const ev of events) t.equal(ev.native?.dialect, 'openai-chat', `${ev.type} keeps its native chunk`);
    t.notOk(events.some((ev) => ev.type.startsWith('thinking') || (ev.type === 'block-start' && ev.block.kind === 'thinking')), 'no thinking blocks');
  });
}

t.test('the cached-tokens fixture: prompt_tokens includes cached tokens', async (t) => {
  const events = decodeChatCompletion(readFileSync(`${DIR}/cached-tokens.json`, 'utf8'));
  const delta = events.find((e) => e.type === 'message-delta');
  t.same(delta?.type === 'message-delta' ? delta.usage : null, { input: 3663 - 3584, output: 117, cacheRead: 3584, cacheWrite: 0, reasoning: 0, webSearches: 0 });
});

// ---- edge cases on hand-made streams ----

const ID = 'chatcmpl-x';
function data(choices: unknown[] | null, extra: Obj = {}): string {
  return JSON.stringify({ id: ID, object: 'chat.completion.chunk', created: 1, model: 'gpt-5', ...(choices === null ? {} : { choices }), ...extra });
}
const delta = (d: Obj, finish: string | null = null): Obj => ({ index: 0, delta: d, finish_reason: finish });
const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function run(frames: string[]): CanonicalEvent[] {
  const dec = new ChatStreamDecoder();
  return frames.flatMap((f) => dec.sse({ event: undefined, data: f }));
}
function kinds(events: CanonicalEvent[]): string[] {
  return events.map((e) => (e.type === 'block-start' ? `start:${e.block.kind}:${e.index}` : e.type === 'tool-input-delta' ? `args:${e.index}:${e.json}` : e.type));
}
function integrityOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (GatewayError.is(err)) return err.code;
    throw err;
  }
  return 'no error';
}

t.test('a tool call whose id arrives after its first fragment', async (t) => {
  const events = run([
    data([delta({ role: 'assistant', content: null })]),
    data([delta({ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] })]),
    data([delta({ tool_calls: [{ index: 0, function: { arguments: ':1' } }] })]),
    data([delta({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'f', arguments: '' } }] })]),
    data([delta({ tool_calls: [{ index: 0, function: { arguments: '}' } }] })]),
    data([delta({}, 'tool_calls')]),
    data([], { usage: USAGE }),
    '[DONE]',
  ]);
  t.same(kinds(events), ['message-start', 'start:tool-call:0', 'args:0:{"a":1', 'args:0:}', 'block-stop', 'message-delta', 'message-stop']);
});

t.test('blocks open one at a time; text after a tool call is a new block', async (t) => {
  const events = run([
    data([delta({ content: 'Hi' })]),
    data([delta({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{}' } }] })]),
    data([delta({ tool_calls: [{ index: 1, id: 'c2', function: { name: 'g', arguments: '' } }] })]),
    data([delta({ content: 'more', reasoning_content: 'hidden' })]),
    data([delta({}, 'stop')], { usage: USAGE }),
    '[DONE]',
  ]);
  t.same(kinds(events), [
    'message-start', 'start:text:0', 'text-delta', 'block-stop', 'start:tool-call:1', 'args:1:{}', 'block-stop', 'start:tool-call:2',
    // reasoning_content is a thinking block of its own, before the text of the same chunk (FAILURE-MODES F27)
    'block-stop', 'start:thinking:3', 'thinking-delta', 'signature-delta', 'block-stop', 'start:text:4', 'text-delta', 'block-stop', 'message-delta', 'message-stop',
  ], 'usage on the finish chunk: message-delta right away');
});

t.test('message-delta waits for the usage chunk', async (t) => {
  const dec = new ChatStreamDecoder();
  const first = [data([delta({ content: 'a' })]), data([delta({}, 'length')])].flatMap((f) => dec.sse({ event: undefined, data: f }));
  t.same(kinds(first), ['message-start', 'start:text:0', 'text-delta', 'block-stop']);
  const rest = dec.sse({ event: undefined, data: data([], { usage: { ...USAGE, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } } }) });
  t.same(rest.map((e) => e.type), ['message-delta']);
  t.same(rest[0]!.type === 'message-delta' ? rest[0]!.usage : null, { input: 6, output: 5, cacheRead: 4, cacheWrite: 0, reasoning: 2, webSearches: 0 });
  t.same(dec.sse({ event: undefined, data: '[DONE]' }).map((e) => e.type), ['message-stop']);
  t.equal(integrityOf(() => dec.sse({ event: undefined, data: data([]) })), 'GW_ERR_INTEGRITY', 'nothing after [DONE]');
});

t.test('a stream without [DONE] ends at the end of the body', async (t) => {
  const dec = new ChatStreamDecoder();
  for (const f of [data([delta({ content: 'a' })]), data([delta({}, 'stop')]), data([], { usage: USAGE })]) dec.sse({ event: undefined, data: f });
  t.same(dec.end().map((e) => e.type), ['message-stop']);
  t.same(dec.end(), [], 'once');
  t.same(new ChatStreamDecoder().end(), [], 'an empty body: nothing (integrity reports the missing message)');
  const cut = new ChatStreamDecoder();
  cut.sse({ event: undefined, data: data([delta({ content: 'a' })]) });
  t.equal(integrityOf(() => cut.end()), 'GW_ERR_INTEGRITY', 'a body cut before finish_reason fails closed');
});

t.test('Azure preamble chunk is skipped', async (t) => {
  const events = run([JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [] }), data([delta({ content: 'x' }, 'stop')], { usage: USAGE }), '[DONE]']);
  t.equal(events[0]!.type, 'message-start');
});

t.test('in-band error chunk', async (t) => {
  const events = run([data([delta({ content: 'a' })]), JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } })]);
  const err = events.at(-1)!;
  t.equal(err.type, 'error');
  if (err.type === 'error') {
    t.equal(err.error.code, 'GW_ERR_UPSTREAM_RATE_LIMITED');
    t.same(err.error.upstream, { protocol: 'openai', status: 429, type: 'rate_limit_exceeded', message: 'Rate limit reached' });
    t.equal(err.error.providerWork, true);
  }
});

t.test('malformed streams fail closed', async (t) => {
  const cases: [string, string[]][] = [
    ['duplicate keys', ['{"id":"a","id":"b","choices":[]}']],
    ['NaN', [`{"id":"a","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"x":NaN}`]],
    ['not JSON', ['hello']],
    ['second choice', [data([{ index: 1, delta: { content: 'x' }, finish_reason: null }])]],
    ['first content chunk without id', [JSON.stringify({ choices: [delta({ content: 'x' })] })]],
    ['no usage at [DONE]', [data([delta({ content: 'x' }, 'stop')]), '[DONE]']],
    ['[DONE] before any chunk', ['[DONE]']],
    ['no finish_reason at [DONE]', [data([delta({ content: 'x' })], { usage: USAGE }), '[DONE]']],
    ['arguments for a tool call whose block closed', [
      data([delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] })]),
      data([delta({ tool_calls: [{ index: 1, id: 'b', function: { name: 'g', arguments: '{}' } }] })]),
      data([delta({ tool_calls: [{ index: 0, function: { arguments: '}' } }] })]),
    ]],
    ['content after finish_reason', [data([delta({}, 'stop')]), data([delta({ content: 'late' })])]],
    ['cached above prompt', [data([delta({}, 'stop')], { usage: { ...USAGE, prompt_tokens_details: { cached_tokens: 11 } } })]],
    ['negative tokens', [data([delta({}, 'stop')], { usage: { ...USAGE, completion_tokens: -1 } })]],
    ['choices not an array', [data(null, { choices: {} })]],
  ];
  for (const [label, frames] of cases) t.equal(integrityOf(() => run(frames)), 'GW_ERR_INTEGRITY', label);
});

t.test('non-streaming body edge cases', async (t) => {
  const body = (message: Obj, extra: Obj = {}): string =>
    JSON.stringify({ id: ID, object: 'chat.completion', model: 'gpt-5', choices: [{ index: 0, message, finish_reason: 'stop' }], usage: USAGE, ...extra });
  t.equal(integrityOf(() => decodeChatCompletion(body({ role: 'assistant', content: 'x' }, { usage: null }))), 'GW_ERR_INTEGRITY', 'usage required');
  t.equal(integrityOf(() => decodeChatCompletion(body({ role: 'assistant', content: 'x' }, { id: '' }))), 'GW_ERR_INTEGRITY', 'id required');
  t.equal(integrityOf(() => decodeChatCompletion('{"id":"a","id":"a"}')), 'GW_ERR_INTEGRITY', 'duplicate keys');
  const events = decodeChatCompletion(body({ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' } }] }));
  t.same(kinds(events), ['message-start', 'start:tool-call:0', 'block-stop', 'message-delta', 'message-stop'], 'empty arguments: no delta');
  const none = decodeChatCompletion(body({ role: 'assistant', content: '' }));
  t.same(kinds(none), ['message-start', 'message-delta', 'message-stop'], 'empty content: no block');
  const d = none[1]!;
  t.same(d.type === 'message-delta' ? d.stop : null, { kind: 'end' });
});
