// A terminal Response frame (response.completed / response.incomplete) that echoes the instructions
// text of the stream's response.created is recognised with that text compared, not matched
// (EchoedInstructions). It must accept only what the strict parser accepts, and give the very object
// the strict parser builds: checked over every recorded Responses stream and the bench's, each with
// several instructions echoed (escapes, non-ASCII, an agent's 12 KB, escapes the serialiser would not
// write), each terminal frame followed by seeded mutations (anywhere, and around the instructions),
// and through the decoder, which gives every event the strict parser's object and refuses what it
// refused before. created's text itself must decode to created's instructions.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import type { JsonObject } from '../../../lib/chunks.js';
import { EchoedInstructions } from '../../../lib/dialects/openai-responses/echoed-instructions.js';
import { responsesDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { recogniseEvent } from '../../../lib/dialects/openai-responses/frame-layouts.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { label, sameJson } from '../../json/json-assert.js';
import { prng } from '../../json/json-gen.js';
import { fixture } from '../../helpers/paths.js';

interface Stream {
  name: string;
  /** every frame: [event, data] */
  frames: [string, string][];
}

const TERMINAL = new Set(['response.completed', 'response.incomplete']);

function framesOf(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const f of text.split('\n\n')) {
    const event = f.split('\n').find((l) => l.startsWith('event: '))?.slice(7);
    const data = f.split('\n').find((l) => l.startsWith('data: '))?.slice(6);
    if (event !== undefined && data !== undefined) out.push([event, data]);
  }
  return out;
}

const AGENT = Array.from({ length: 110 }, (_, i) => `- Rule ${i}: when the user says "fix it", read the file first; run \`npm test\`.\tNever guess.\n`).join('');

/** instructions to echo: [name, value, how the upstream writes its JSON text] */
const ECHOES: [string, string, (s: string) => string][] = [
  ['plain', 'Be brief.', JSON.stringify],
  ['escapes', 'You are "support"\n\u2028 é 😀 \\ end', JSON.stringify],
  ['agent-sized', `You are a coding agent.\n\n${AGENT}`, JSON.stringify],
  ['\\u and \\/ escapes', 'Use \u00e9 and / here', (s) => JSON.stringify(s).replace('é', '\\u00e9').replace('/', '\\/')],
  ['empty', '', JSON.stringify],
];

/** frame data with the Response's instructions written as `json` (the members otherwise as recorded) */
function withInstructions(data: string, json: string): string {
  const parsed = parseStrict(data) as JsonObject;
  const response = parsed.response as JsonObject;
  const marker = '\u0000instructions\u0000';
  response.instructions = marker;
  return JSON.stringify(parsed).replace(JSON.stringify(marker), () => json);
}

function streams(): Stream[] {
  const dir = fixture('upstream', 'openai-responses');
  const recorded: Stream[] = readdirSync(dir).filter((f) => f.endsWith('.sse')).sort().map((name) => ({ name, frames: framesOf(readFileSync(`${dir}/${name}`, 'utf8')) }));
  // the bench's upstream (bench/upstream.ts)
  const response = (status: string, output: unknown[], usage: unknown): JsonObject => ({
    id: 'resp_bench_0001', object: 'response', created_at: 1767225600, status, background: false, error: null, incomplete_details: null,
    instructions: null, max_output_tokens: null, model: 'gpt-bench', output: output as JsonObject[], parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, service_tier: 'default', store: false, temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled', usage: usage as JsonObject, metadata: {},
  });
  const item = { id: 'msg_1', type: 'message', status: 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hi.' }], role: 'assistant' };
  const usage = { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 };
  recorded.push({
    name: 'bench',
    frames: [
      ['response.created', JSON.stringify({ type: 'response.created', sequence_number: 0, response: response('in_progress', [], null) })],
      ['response.output_item.done', JSON.stringify({ type: 'response.output_item.done', sequence_number: 1, output_index: 0, item })],
      ['response.completed', JSON.stringify({ type: 'response.completed', sequence_number: 2, response: response('completed', [item], usage) })],
    ],
  });
  const out: Stream[] = [];
  for (const s of recorded) {
    for (const [echo, value, write] of ECHOES) {
      const json = write(value);
      const frames = s.frames.map(([event, data]): [string, string] => [event, /^\{"type":"response\.(created|in_progress|completed|incomplete|failed)"/.test(data) ? withInstructions(data, json) : data]);
      out.push({ name: `${s.name} echoing ${echo} instructions`, frames });
    }
  }
  return out;
}

const INSERTS = [' ', '"', '\\', '0', ',', '{', '}', '[', ']', ':', 'n', 'u', '\u0001', 'é', 'x', 'null', '"a"'];

/** a character deleted, inserted or replaced, anywhere or (half the time) within 20 characters of the instructions */
function mutate(data: string, rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const key = data.indexOf('"instructions":');
  const near = key >= 0 && rand() < 0.5;
  const at = near ? Math.max(0, key + Math.floor(rand() * 40) - 20 + (rand() < 0.5 ? 0 : data.indexOf('"max_output_tokens"') - key)) : Math.floor(rand() * data.length);
  const r = rand();
  if (r < 0.33) return data.slice(0, at) + data.slice(at + 1);
  if (r < 0.66) return data.slice(0, at) + pick(INSERTS) + data.slice(at);
  return data.slice(0, at) + pick(INSERTS) + data.slice(at + 1);
}

function strict(data: string): unknown {
  try {
    return parseStrict(data);
  } catch {
    return undefined;
  }
}

t.test('a terminal frame read with created\'s instructions text is the object the strict parser builds', async (t) => {
  const rand = prng(21);
  let read = 0;
  let refused = 0;
  let failures = 0;
  const readIn = new Set<string>();
  const fail = (message: string): void => {
    if (failures++ < 10) t.fail(message);
  };
  for (const s of streams()) {
    const created = s.frames.find(([event]) => event === 'response.created')?.[1];
    const terminal = s.frames.find(([event]) => TERMINAL.has(event));
    if (created === undefined || terminal === undefined) continue;
    const echoed = new EchoedInstructions();
    const recognised = recogniseEvent('response.created', created);
    if (recognised !== null) echoed.created(created, recognised.parsed);
    const value = (parseStrict(created) as { response: JsonObject }).response.instructions;
    if (recognised !== null && typeof value === 'string') {
      t.ok(echoed.span !== undefined && strict(created.slice(echoed.span[0], echoed.span[1])) === value, `${s.name}: created's text decodes to its instructions`);
      t.ok(echoed.terminal(terminal[0], terminal[1]) !== null || recogniseEvent(terminal[0], terminal[1]) === null, `${s.name}: the terminal frame is read that way when its layout recognises it`);
    }
    for (const data of [terminal[1], ...Array.from({ length: 300 }, () => mutate(terminal[1], rand))]) {
      const fast = echoed.terminal(terminal[0], data);
      const ref = strict(data);
      if (ref === undefined) refused++;
      if (fast === null) continue;
      read++;
      readIn.add(s.name.replace(/ echoing .*/, ''));
      if (ref === undefined) fail(`${s.name}: read what the strict parser refuses: ${label(data)}`);
      else if (!sameJson(fast.parsed, ref)) fail(`${s.name}: a different object for ${label(data)}`);
    }
  }
  t.equal(failures, 0, 'no disagreement');
  t.ok(read > 500, `${read} terminal frames read with created's text (each equal to the strict parse)`);
  t.ok(readIn.size >= 3, `in ${[...readIn].join(', ')}`);
  t.ok(refused > 1000, `${refused} mutated frames the strict parser refuses, none read`);
});

t.test('created\'s text: what a mutated created frame that its layout recognises says its instructions are', async (t) => {
  const rand = prng(22);
  let checked = 0;
  for (const s of streams()) {
    const created = s.frames.find(([event]) => event === 'response.created')?.[1];
    if (created === undefined) continue;
    for (let i = 0; i < 100; i++) {
      const data = mutate(created, rand);
      const recognised = recogniseEvent('response.created', data);
      if (recognised === null) continue;
      const echoed = new EchoedInstructions();
      echoed.created(data, recognised.parsed);
      const value = (recognised.parsed.response as JsonObject).instructions;
      if (echoed.span === undefined) {
        t.not(typeof value, 'string', `${s.name}: a text kept for string instructions (${label(data)})`);
        continue;
      }
      checked++;
      if (strict(data.slice(echoed.span[0], echoed.span[1])) !== value) t.fail(`${s.name}: the text kept is not the instructions: ${label(data)}`);
    }
  }
  t.ok(checked > 100, `${checked} mutated created frames, their text kept`);
});

t.test('through the decoder: each event carries the strict parser\'s object, and what was refused still is', async (t) => {
  const rand = prng(23);
  let broken = 0;
  for (const s of streams()) {
    const decoder = responsesDecoder();
    let ended = false;
    for (const [event, data] of s.frames) {
      for (const ev of decoder.sse({ event, data })) {
        if (ev.native !== undefined && !sameJson(ev.native.parsed, parseStrict(ev.native.data))) t.fail(`${s.name}: ${event} decoded to another object`);
        if (ev.type === 'message-stop' || ev.type === 'error') ended = true;
      }
    }
    t.ok(ended || !s.frames.some(([event]) => TERMINAL.has(event)), `${s.name}: decoded to its end`);
    // a terminal frame the strict parser refuses is refused by the decoder, with created's text in place
    const at = s.frames.findIndex(([event]) => TERMINAL.has(event));
    if (at < 0) continue;
    for (let i = 0; i < 40; i++) {
      const data = mutate(s.frames[at]![1], rand);
      if (strict(data) !== undefined) continue;
      broken++;
      const d = responsesDecoder();
      for (const [event, frame] of s.frames.slice(0, at)) d.sse({ event, data: frame });
      try {
        d.sse({ event: s.frames[at]![0], data });
        t.fail(`${s.name}: read ${label(data)}`);
      } catch (err) {
        if ((err as { code?: string }).code !== 'GW_ERR_INTEGRITY') t.fail(`${s.name}: ${String(err)} for ${label(data)}`);
      }
    }
  }
  t.ok(broken > 100, `${broken} broken terminal frames refused, each an integrity error`);
});
