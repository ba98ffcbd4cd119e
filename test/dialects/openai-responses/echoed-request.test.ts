// A terminal Response frame (response.completed / response.incomplete) that echoes the instructions
// and tools texts of the stream's response.created is read with those texts compared, not parsed
// again (EchoedRequest); a created frame in another layout than the recognised one is read strictly
// with its members' places (parseResponseFrame). Both must accept only what the strict parser
// accepts, and give the very object the strict parser builds: checked over every recorded Responses
// stream and the bench's, each echoing several instructions (escapes, non-ASCII, an agent's 12 KB,
// escapes the serialiser would not write) with and without agent-like tools, each frame followed by
// seeded mutations (anywhere, and around the instructions and tools), and through the decoder, which
// gives every event the strict parser's object and refuses what it refused before. created's kept
// instructions text must decode to its instructions.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import type { JsonObject } from '../../../lib/chunks.js';
import { EchoedRequest } from '../../../lib/dialects/openai-responses/echoed-request.js';
import { parseResponseFrame } from '../../../lib/dialects/openai-responses/response-frame.js';
import { responsesDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { recogniseEvent } from '../../../lib/dialects/openai-responses/frame-layouts.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { withEcho } from './harness.js';
import { label, sameJson, strictValue as strict } from '../../json/json-assert.js';
import { editAt, pick, prng } from '../../json/json-gen.js';
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

/** Codex-like tools, as an upstream writes them: JSON.stringify's text, or spaced with a \u escape */
const TOOLS = [
  { type: 'function', name: 'shell', description: 'Runs a command.\nUse "bash -lc".', strict: false, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'], additionalProperties: false } },
  { type: 'function', name: 'apply_patch', description: 'Edits files: é', strict: false, parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } },
  { type: 'web_search' },
];
const TOOL_ECHOES: [string, string | null][] = [
  ['', null],
  [' with tools', JSON.stringify(TOOLS)],
  [' with spaced tools', JSON.stringify(TOOLS, null, 1).replace('é', '\\u00e9')],
];


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
      for (const [withTools, tools] of TOOL_ECHOES) {
        const json = write(value);
        const frames = s.frames.map(([event, data]): [string, string] => [event, /^\{"type":"response\.(created|in_progress|completed|incomplete|failed)"/.test(data) ? withEcho(data, json, tools) : data]);
        out.push({ name: `${s.name} echoing ${echo} instructions${withTools}`, frames });
      }
    }
  }
  return out;
}

const INSERTS = [' ', '"', '\\', '0', ',', '{', '}', '[', ']', ':', 'n', 'u', '\u0001', 'é', 'x', 'null', '"a"'];

/** a character deleted, inserted or replaced, anywhere or (half the time) within 20 characters of where the instructions or tools begin or end */
function mutate(data: string, rand: () => number): string {
  const marks = [data.indexOf('"instructions":'), data.indexOf('"max_output_tokens"'), data.lastIndexOf('"tools":'), data.lastIndexOf('"top_')].filter((i) => i >= 0);
  const near = marks.length > 0 && rand() < 0.5;
  const at = near ? Math.max(0, pick(rand, marks) + Math.floor(rand() * 40) - 20) : Math.floor(rand() * data.length);
  const r = rand();
  return editAt(data, at, r < 0.33 ? 'delete' : r < 0.66 ? 'insert' : 'replace', () => pick(rand, INSERTS));
}

/** created read as the decoder reads it: by its layout, else strictly with its members' places */
function readCreated(data: string): EchoedRequest {
  const echoed = new EchoedRequest();
  const recognised = recogniseEvent('response.created', data);
  if (recognised !== null) echoed.createdByLayout(data, recognised.parsed);
  else {
    const frame = parseResponseFrame('response.created', data);
    if (frame !== null) echoed.createdParsed(data, frame);
  }
  return echoed;
}

t.test('a terminal frame read with created\'s texts is the object the strict parser builds', async (t) => {
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
    const echoed = readCreated(created);
    const value = (parseStrict(created) as { response: JsonObject }).response.instructions;
    if (typeof value === 'string' && echoed.span !== undefined && strict(created.slice(echoed.span[0], echoed.span[1])) !== value) fail(`${s.name}: created's kept text is not its instructions`);
    for (const data of [terminal[1], ...Array.from({ length: 200 }, () => mutate(terminal[1], rand))]) {
      const fast = echoed.terminal(terminal[0], data);
      const ref = strict(data);
      if (ref === undefined) refused++;
      if (fast === null) continue;
      read++;
      readIn.add(s.name);
      if (ref === undefined) fail(`${s.name}: read what the strict parser refuses: ${label(data)}`);
      else if (!sameJson(fast, ref)) fail(`${s.name}: a different object for ${label(data)}`);
    }
  }
  t.equal(failures, 0, 'no disagreement');
  t.ok(read > 2000, `${read} terminal frames read with created's texts (each equal to the strict parse)`);
  const names = [...readIn];
  t.ok(names.some((n) => n.endsWith('with tools')) && names.some((n) => n.endsWith('spaced tools')), 'with tools echoed too');
  t.ok(new Set(names.map((n) => n.replace(/ echoing .*/, ''))).size >= 6, `from ${[...new Set(names.map((n) => n.replace(/ echoing .*/, '')))].join(', ')}`);
  t.ok(refused > 3000, `${refused} mutated frames the strict parser refuses, none read`);
});

t.test('a created frame read with its members\' places is the strict parser\'s object; its kept text is its instructions', async (t) => {
  const rand = prng(22);
  let read = 0;
  let failures = 0;
  const fail = (message: string): void => {
    if (failures++ < 10) t.fail(message);
  };
  for (const s of streams()) {
    const created = s.frames.find(([event]) => event === 'response.created')?.[1];
    if (created === undefined) continue;
    for (const data of [created, ...Array.from({ length: 60 }, () => mutate(created, rand))]) {
      const ref = strict(data);
      const frame = parseResponseFrame('response.created', data);
      if (frame !== null) {
        read++;
        if (ref === undefined) fail(`${s.name}: read what the strict parser refuses: ${label(data)}`);
        else if (!sameJson(frame.parsed, ref)) fail(`${s.name}: a different object for ${label(data)}`);
        for (const [key, [from, to]] of frame.members) if (!sameJson(strict(data.slice(from, to)), (frame.parsed.response as JsonObject)[key])) fail(`${s.name}: ${key}'s place is not its value: ${label(data)}`);
      }
      if (ref === undefined) continue;
      const echoed = readCreated(data);
      const value = ((ref as JsonObject).response as JsonObject | undefined)?.instructions;
      if (echoed.span !== undefined && strict(data.slice(echoed.span[0], echoed.span[1])) !== value) fail(`${s.name}: the text kept is not the instructions: ${label(data)}`);
    }
  }
  t.equal(failures, 0, 'no disagreement');
  t.ok(read > 1000, `${read} created frames read with their members' places`);
});

t.test('created\'s texts elsewhere in a terminal frame (decoys) are never taken for its instructions or tools', async (t) => {
  let checked = 0;
  for (const s of streams().filter((x) => x.name.endsWith('with tools'))) {
    const created = s.frames.find(([event]) => event === 'response.created')?.[1];
    const terminal = s.frames.find(([event]) => TERMINAL.has(event));
    if (created === undefined || terminal === undefined) continue;
    const echoed = readCreated(created);
    const base = parseStrict(terminal[1]) as JsonObject;
    const response = base.response as JsonObject;
    const decoys: JsonObject[] = [
      // the texts in a member before the instructions and one after the tools, the real ones other values
      { ...base, response: { decoy: { instructions: response.instructions!, tools: response.tools! }, ...response, instructions: null, tools: [] } },
      { ...base, response: { ...response, instructions: null, tools: [], metadata: { instructions: response.instructions!, tools: response.tools! } } },
      // the texts there and also in their places
      { ...base, response: { decoy: { instructions: response.instructions! }, ...response, metadata: { tools: response.tools! } } },
    ];
    for (const d of decoys) {
      const data = JSON.stringify(d);
      const fast = echoed.terminal(terminal[0], data);
      checked++;
      if (fast !== null && !sameJson(fast, parseStrict(data))) t.fail(`${s.name}: a decoy taken for the real member: ${label(data)}`);
    }
  }
  t.ok(checked >= 30, `${checked} frames with decoys`);
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
