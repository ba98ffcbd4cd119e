// Every frame layout the decoders recognise (lib/json/layout.ts; the tables in each dialect's
// frame-layouts.ts, and the delta recognisers beside them) against the strict parser, over every
// recorded upstream frame (fixtures/upstream), the frames the bench's upstream writes, and thousands
// of seeded mutations of them (a character deleted, inserted or replaced, a member repeated, a number
// or a string rewritten): whatever a recogniser accepts, the strict parser accepts too and makes the
// very same object (same keys in the same order, same values); whatever the strict parser refuses,
// no recogniser accepts (the decoder then throws the strict parser's error). And the frames the
// layouts are for are really recognised, so the comparison is not vacuous.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import type { JsonObject } from '../../lib/chunks.js';
import { recogniseFrame } from '../../lib/dialects/anthropic/frame-layouts.js';
import { decodeAnthropicSse } from '../../lib/dialects/anthropic/events.js';
import { parseChunkLayout } from '../../lib/dialects/openai-chat/chunk-layout.js';
import { recogniseChunk } from '../../lib/dialects/openai-chat/frame-layouts.js';
import { parseDeltaLayout } from '../../lib/dialects/openai-responses/delta-layout.js';
import { recogniseEvent } from '../../lib/dialects/openai-responses/frame-layouts.js';
import { parseStrict } from '../../lib/json/strict-parse.js';
import { label, sameJson } from '../json/json-assert.js';
import { prng } from '../json/json-gen.js';
import { fixture } from '../helpers/paths.js';

type Dialect = 'anthropic' | 'openai-chat' | 'openai-responses';
interface Frame {
  dialect: Dialect;
  event: string | undefined;
  data: string;
}

/** What the decoder of `dialect` recognises without the strict parser (null: the strict parser's turn). */
function recognised(f: Frame): { parsed: JsonObject; span?: [number, number] } | null {
  switch (f.dialect) {
    case 'anthropic': {
      const parsed = f.event === undefined ? null : recogniseFrame(f.event, f.data);
      return parsed === null ? null : { parsed };
    }
    case 'openai-chat': {
      const r = parseChunkLayout(f.data) ?? recogniseChunk(f.data);
      return r === null ? null : { parsed: r.parsed, span: r.modelSpan };
    }
    case 'openai-responses': {
      const d = parseDeltaLayout(f.data);
      if (d !== null) return { parsed: d.parsed };
      const r = recogniseEvent(f.event, f.data);
      return r === null ? null : { parsed: r.parsed, span: r.spans.text };
    }
  }
}

function strict(data: string): { value: unknown } | { error: string } {
  try {
    return { value: parseStrict(data) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** '' when the recogniser agrees with the strict parser on `f` (or steps aside), else what differs */
function disagreement(f: Frame): string {
  const fast = recognised(f);
  if (fast === null) return '';
  const ref = strict(f.data);
  if ('error' in ref) return `recognised what the strict parser refuses (${ref.error}): ${label(f.data)}`;
  if (!sameJson(fast.parsed, ref.value)) return `a different object: ${label(JSON.stringify(fast.parsed))} vs ${label(JSON.stringify(ref.value))}`;
  if (fast.span !== undefined) {
    const spanned = JSON.parse(f.data.slice(...fast.span)) as unknown;
    const want = f.dialect === 'openai-chat' ? fast.parsed.model : ((fast.parsed.item as JsonObject).content as JsonObject[])[0]!.text;
    if (spanned !== want) return `the span holds ${label(String(spanned))}: ${label(f.data)}`;
  }
  return '';
}

function recorded(dialect: Dialect): Frame[] {
  const out: Frame[] = [];
  for (const file of readdirSync(fixture('upstream', dialect)).filter((n) => n.endsWith('.sse')).sort()) {
    let event: string | undefined;
    for (const line of readFileSync(fixture('upstream', dialect, file), 'utf8').split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ') && line !== 'data: [DONE]') out.push({ dialect, event, data: line.slice(6) });
      else if (line === '') event = undefined;
    }
  }
  return out;
}

/** The frames the bench's upstream writes (bench/upstream.ts), one of each. */
function benchFrames(): Frame[] {
  const text = 'tok0 xxxtok1 xxx';
  const a = (type: string, d: object): Frame => ({ dialect: 'anthropic', event: type, data: JSON.stringify({ type, ...d }) });
  const usage = (output: number): object => ({ input_tokens: 310, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output });
  const chunk = (choices: unknown[], u: unknown = null): Frame => ({
    dialect: 'openai-chat', event: undefined,
    data: JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-bench', service_tier: 'default', system_fingerprint: 'fp_bench', choices, usage: u }),
  });
  const choice = (delta: object, finish: string | null = null): unknown[] => [{ index: 0, delta, logprobs: null, finish_reason: finish }];
  const item = { id: 'msg_bench_0001', type: 'message', status: 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text }], role: 'assistant' };
  const response = (status: string, output: unknown[], u: unknown): object => ({
    id: 'resp_bench_0001', object: 'response', created_at: 1_767_225_600, status, background: false, error: null, incomplete_details: null,
    instructions: null, max_output_tokens: null, model: 'gpt-bench', output, parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, service_tier: 'default', store: false, temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled', usage: u, metadata: {},
  });
  let seq = 0;
  const r = (type: string, d: object): Frame => ({ dialect: 'openai-responses', event: type, data: JSON.stringify({ type, sequence_number: seq++, ...d }) });
  const at = { item_id: 'msg_bench_0001', output_index: 0, content_index: 0 };
  const rUsage = { input_tokens: 310, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 312 };
  return [
    a('message_start', { message: { id: 'msg_bench_0001', type: 'message', role: 'assistant', model: 'claude-bench', content: [], stop_reason: null, stop_sequence: null, usage: usage(1) } }),
    a('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    a('ping', {}),
    a('content_block_stop', { index: 0 }),
    a('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: usage(2) }),
    a('message_stop', {}),
    chunk(choice({ role: 'assistant', content: '', refusal: null })),
    chunk(choice({}, 'stop')),
    chunk([], { prompt_tokens: 310, completion_tokens: 2, total_tokens: 312, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } }),
    r('response.created', { response: response('in_progress', [], null) }),
    r('response.in_progress', { response: response('in_progress', [], null) }),
    r('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
    r('response.content_part.added', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } }),
    r('response.output_text.done', { ...at, text, logprobs: [] }),
    r('response.content_part.done', { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text } }),
    r('response.output_item.done', { output_index: 0, item }),
    r('response.completed', { response: response('completed', [item], rUsage) }),
  ];
}

const ALL = [...recorded('anthropic'), ...recorded('openai-chat'), ...recorded('openai-responses'), ...benchFrames()];

/** The kind of frame, for counting what was recognised: the event name, or a Chat chunk's shape. */
function kind(f: Frame, parsed: JsonObject): string {
  if (f.dialect !== 'openai-chat') {
    const d = parsed.delta;
    return typeof d === 'object' && d !== null && !Array.isArray(d) && typeof d.type === 'string' ? `${f.event}/${d.type}` : String(f.event);
  }
  const c = (parsed.choices as JsonObject[])[0];
  if (c === undefined) return 'chat/usage';
  const delta = c.delta as JsonObject;
  if (delta.tool_calls !== undefined) return 'chat/tool-call';
  if (delta.role !== undefined) return 'chat/first';
  if (typeof c.finish_reason === 'string') return 'chat/finish';
  return 'chat/content';
}

t.test('recorded and bench frames: recognised exactly as the strict parser parses them', async (t) => {
  const seen = new Set<string>();
  for (const f of ALL) {
    const why = disagreement(f);
    if (why !== '') t.fail(why);
    const r = recognised(f);
    if (r !== null) seen.add(kind(f, r.parsed));
  }
  const wanted = [
    'message_start', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop', 'ping',
    'content_block_delta/text_delta', 'content_block_delta/input_json_delta', 'content_block_delta/thinking_delta',
    'chat/first', 'chat/content', 'chat/finish', 'chat/usage', 'chat/tool-call',
    'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta',
    'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    'response.function_call_arguments.delta', 'response.incomplete',
  ];
  for (const k of wanted) t.ok(seen.has(k), `${k} frames are recognised`);
  for (const f of benchFrames()) t.not(recognised(f), null, `the bench's ${f.event ?? 'chunk'} frame is recognised`);
});

const INSERTS = [' ', '"', '\\', '0', '9', ',', '{', '}', '[', ']', ':', 'e', '-', '.', '\u0001', 'é', 'n', 'u'];

/** One seeded mutation of `data`. */
function mutate(data: string, rand: () => number): string {
  const at = Math.floor(rand() * data.length);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const r = rand();
  if (r < 0.2) return data.slice(0, at) + data.slice(at + 1);
  if (r < 0.4) return data.slice(0, at) + pick(INSERTS) + data.slice(at);
  if (r < 0.55) return data.slice(0, at) + pick(INSERTS) + data.slice(at + 1);
  if (r < 0.62) {
    // a number rewritten: out of range, signed, leading zero, fraction, exponent
    const numbers = [...data.matchAll(/:(-?\d+(?:\.\d+)?)/g)];
    if (numbers.length === 0) return data;
    const n = pick(numbers);
    const from = n.index + 1;
    return data.slice(0, from) + pick(['1e400', '-1', '01', '1.5', '1E2', '-0', '12345678901234567', '0.10']) + data.slice(from + n[1]!.length);
  }
  const members = [...data.matchAll(/"([A-Za-z_]+)":("[^"\\]*"|-?\d+(?:\.\d+)?|null|true|false|\[\]|\{\})/g)];
  if (members.length === 0) return data;
  const m = pick(members);
  const end = m.index + m[0].length;
  if (r < 0.7) return `${data.slice(0, end)},${m[0]}${data.slice(end)}`; // the member again: a duplicate key
  if (r < 0.75) return `${data.slice(0, end)},"__proto__":1${data.slice(end)}`;
  const value = pick(['12345678901234567', '1e400', '-1', '01', '1.0', '1.5', '-0', '"x"', '"\\u0041\\n\\ud83d\\ude00"', '"a\\q"', 'null', 'true', '{}', '[]', '{"a":1}', '[1]']);
  return `${data.slice(0, m.index)}"${m[1]}":${value}${data.slice(end)}`;
}

t.test('mutations: a recogniser accepts only what the strict parser accepts, and agrees on it', async (t) => {
  const rand = prng(21);
  let accepted = 0;
  let refused = 0;
  let failures = 0;
  for (const f of ALL) {
    for (let i = 0; i < 40; i++) {
      const m = { ...f, data: mutate(f.data, rand) };
      const why = disagreement(m);
      if (why !== '' && failures++ < 20) t.fail(why);
      if (recognised(m) !== null) accepted++;
      else if ('error' in strict(m.data)) refused++;
    }
  }
  t.equal(failures, 0, 'no disagreement');
  t.ok(accepted > 1000, `${accepted} mutated frames recognised (and equal to the strict parse)`);
  t.ok(refused > 1000, `${refused} mutated frames refused by the strict parser, none recognised`);
});

t.test('a near miss takes the strict parser, whose error the decoder throws', async (t) => {
  const data = '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2,"output_tokens":3}}';
  t.equal(recogniseFrame('message_delta', data), null, 'a duplicate key inside usage: not recognised');
  t.throws(() => decodeAnthropicSse({ event: 'message_delta', data }), /duplicate key "output_tokens"/, 'the strict parser\'s error');
  const start = '{"type":"message_start","message":{"model":"m","id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1e400}}}';
  t.equal(recogniseFrame('message_start', start), null, 'a number out of range: not recognised');
  t.throws(() => decodeAnthropicSse({ event: 'message_start', data: start }), /integrity/i);
});
