// A `response.created` frame with the instructions and tools texts an earlier stream's created frame
// had (remembered: echoed-texts.ts) is read with placeholders there (EchoedRequest.createdKnown),
// not parsed whole. It must accept only what the strict parser accepts and give the very object it
// builds, and leave the stream's decoder as the strict path leaves it: checked over every recorded
// Responses stream (fixtures/ and ../shared's) and the bench's, each echoing several instructions
// and tools (Codex-sized among them), with seeded mutations of the created frame and near misses
// (instructions one character off, tools reordered or spaced, a key moved); and through the decode
// chain, whole, byte by byte and in random chunks, a stream decodes to the same events (native
// frames, their objects and kept spans included) with texts remembered as with none.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { CanonicalEvent, JsonObject } from '../../../lib/chunks.js';
import { EchoedRequest } from '../../../lib/dialects/openai-responses/echoed-request.js';
import { copyJson, KNOWN_INSTRUCTIONS, KNOWN_TOOLS } from '../../../lib/dialects/openai-responses/echoed-texts.js';
import { responsesDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { parseResponseFrame } from '../../../lib/dialects/openai-responses/response-frame.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { label, sameJson, strictValue as strict } from '../../json/json-assert.js';
import { editAt, pick, prng } from '../../json/json-gen.js';
import { CHUNKINGS, chunk } from '../../helpers/replay.js';
import { DIR, decodeChunks, withEcho } from './harness.js';

const SHARED = join(DIR, '..', '..', '..', '..', 'shared', 'fixtures', 'upstream', 'openai-responses');
const RESPONSE_EVENT = /^\{"type":"response\.(created|in_progress|completed|incomplete|failed)"/;

type Frame = [string, string];
interface Stream {
  name: string;
  frames: Frame[];
}

function framesOf(text: string): Frame[] {
  const out: Frame[] = [];
  for (const block of text.split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event !== undefined && data !== undefined) out.push([event, data]);
  }
  return out;
}

const forget = (): void => {
  KNOWN_INSTRUCTIONS.clear();
  KNOWN_TOOLS.clear();
};

let rules = 'You are a coding agent.\n';
for (let i = 0; rules.length < 12_500; i++) rules += `- Rule ${i}: when the user says "fix it", read the file first; run \`npm test\`.\tNever guess.\n`;
const CODEX_TOOLS = Array.from({ length: 10 }, (_, i) => ({
  type: 'function', name: `tool_${i}`, description: `Runs operation ${i}.\nUse it for "op ${i}".`, strict: false,
  parameters: { type: 'object', properties: { path: { type: 'string', description: 'Absolute path' }, limit: { type: 'integer' } }, required: ['path'], additionalProperties: false },
}));

/** instructions to echo: [name, value, its JSON text] */
const ECHOES: [string, string, string][] = [
  ['plain', 'Be brief.', JSON.stringify('Be brief.')],
  ['escapes', 'You are "support"\n\u2028 é 😀 \\ end', JSON.stringify('You are "support"\n\u2028 é 😀 \\ end')],
  ['Codex-sized', rules, JSON.stringify(rules)],
  ['\\u and \\/ escapes', 'Use \u00e9 and / here', JSON.stringify('Use \u00e9 and / here').replace('é', '\\u00e9').replace('/', '\\/')],
];
const TOOL_ECHOES: [string, string | null][] = [
  ['', null],
  [' with tools', JSON.stringify(CODEX_TOOLS)],
  [' with spaced tools', JSON.stringify(CODEX_TOOLS.slice(0, 3), null, 1).replace('é', '\\u00e9')],
];


function streams(): Stream[] {
  const recorded: Stream[] = [];
  for (const dir of [DIR, SHARED]) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.sse')).sort()) recorded.push({ name: `${dir === DIR ? '' : 'shared '}${f}`, frames: framesOf(readFileSync(join(dir, f), 'utf8')) });
  }
  // a bench- / Codex-shaped stream (as bench/chain-cost.ts writes one)
  const item = { id: 'msg_1', type: 'message', status: 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hi there' }], role: 'assistant' };
  const response = (status: string, output: object[], usage: object | null): object => ({
    id: 'resp_1', object: 'response', created_at: 1767225600, status, background: false, error: null, incomplete_details: null, instructions: null,
    max_output_tokens: null, model: 'gpt-5', output, parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null },
    service_tier: 'default', store: false, temperature: 1, text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: 'auto', tools: [],
    top_p: 1, truncation: 'disabled', usage, metadata: {},
  });
  const usage = { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 };
  const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
  const ev = (type: string, seq: number, fields: object): Frame => [type, JSON.stringify({ type, sequence_number: seq, ...fields })];
  recorded.push({
    name: 'bench',
    frames: [
      ev('response.created', 0, { response: response('in_progress', [], null) }),
      ev('response.in_progress', 1, { response: response('in_progress', [], null) }),
      ev('response.output_item.added', 2, { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
      ev('response.content_part.added', 3, { ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } }),
      ev('response.output_text.delta', 4, { ...at, delta: 'Hi there', logprobs: [] }),
      ev('response.output_item.done', 5, { output_index: 0, item }),
      ev('response.completed', 6, { response: response('completed', [item], usage) }),
    ],
  });
  const out: Stream[] = [];
  for (const s of recorded) {
    if (!s.frames.some(([event]) => event === 'response.created')) continue;
    for (const [echo, , json] of ECHOES) {
      for (const [withTools, tools] of TOOL_ECHOES) {
        out.push({ name: `${s.name} echoing ${echo} instructions${withTools}`, frames: s.frames.map(([event, data]): Frame => [event, RESPONSE_EVENT.test(data) ? withEcho(data, json, tools) : data]) });
      }
    }
  }
  return out;
}

const STREAMS = streams();
const createdOf = (s: Stream): string => s.frames.find(([event]) => event === 'response.created')![1];

const INSERTS = [' ', '"', '\\', '0', ',', '{', '}', '[', ']', ':', 'n', 'u', '\u0001', 'é', 'x', 'null', '"a"'];

/** a character deleted, inserted or replaced, anywhere or (mostly) within 20 characters of where the instructions or tools begin or end */
function mutate(data: string, rand: () => number): string {
  const marks = [data.indexOf('"instructions":'), data.indexOf('"max_output_tokens"'), data.lastIndexOf('"tools":'), data.lastIndexOf('"top_p"')].filter((i) => i >= 0);
  const near = marks.length > 0 && rand() < 0.7;
  const at = near ? Math.max(0, pick(rand, marks) + Math.floor(rand() * 40) - 20) : Math.floor(rand() * data.length);
  const r = rand();
  return editAt(data, at, r < 0.33 ? 'delete' : r < 0.66 ? 'insert' : 'replace', () => pick(rand, INSERTS));
}

/** near misses of a created frame: valid JSON that differs from it in its instructions or tools text */
function nearMisses(data: string): string[] {
  const parsed = parseStrict(data) as JsonObject;
  const response = parsed.response as JsonObject;
  const out: string[] = [];
  const variant = (change: (r: JsonObject) => void, write: (o: JsonObject) => string = (o) => JSON.stringify(o)): void => {
    const copy = structuredClone(parsed);
    change(copy.response as JsonObject);
    out.push(write(copy));
  };
  if (typeof response.instructions === 'string' && response.instructions.length > 0) {
    const s = response.instructions;
    variant((r) => (r.instructions = `${s.slice(0, -1)}${s.endsWith('x') ? 'y' : 'x'}`)); // the last character
    variant((r) => (r.instructions = `x${s.slice(1)}`)); // the first
    variant((r) => (r.instructions = `${s.slice(0, s.length >> 1)}Z${s.slice((s.length >> 1) + 1)}`)); // the middle
    variant((r) => (r.instructions = s.slice(0, -1))); // one short
    variant((r) => (r.instructions = `${s} `)); // one long
    out.push(data.replace('"instructions":', '"instructions": ')); // whitespace before it
  }
  if (Array.isArray(response.tools) && response.tools.length > 1) {
    const tools = response.tools;
    variant((r) => (r.tools = [tools[1]!, tools[0]!, ...tools.slice(2)])); // two swapped
    variant((r) => (r.tools = tools.slice(0, -1))); // one less
    variant((r) => (r.tools = [...tools, tools[0]!])); // one more
    variant((r) => {
      const [first, ...rest] = tools as JsonObject[];
      const { name, ...others } = first!;
      r.tools = [{ ...others, name: name! }, ...rest]; // a key moved
    });
    variant((r) => (r.tools = [{ ...(tools[0] as JsonObject), strict: true }, ...tools.slice(1)])); // a value changed
    out.push(data.replace(/"tools":\[/, '"tools": [')); // whitespace
    out.push(data.replace(/"tools":\[\{/, '"tools":[ {'));
  }
  return out;
}

t.test('a created frame read with remembered texts is the object the strict parser builds', async (t) => {
  const rand = prng(0x13c0);
  let read = 0;
  let refused = 0;
  let misses = 0;
  let ownRead = 0;
  let failures = 0;
  const fail = (message: string): void => {
    if (failures++ < 10) t.fail(message);
  };
  for (const s of STREAMS) {
    const created = createdOf(s);
    forget();
    // what the decoder remembers of created, read strictly
    responsesDecoder().sse({ event: 'response.created', data: created });
    const ref0 = parseStrict(created) as JsonObject;
    const wantTools = Array.isArray((ref0.response as JsonObject).tools) && ((ref0.response as JsonObject).tools as unknown[]).length > 0;
    const again = new EchoedRequest().createdKnown('response.created', created);
    // (remembered when read strictly with its members' places: tools echoed, the sequence number before the Response)
    if (again === null) {
      if (wantTools && parseResponseFrame('response.created', created) !== null) fail(`${s.name}: its own created frame not read with the texts remembered`);
    } else {
      ownRead++;
      // each stream its own tools value
      const other = new EchoedRequest().createdKnown('response.created', created)!;
      if (wantTools && (again.response as JsonObject).tools === (other.response as JsonObject).tools) fail(`${s.name}: tools value shared`);
    }
    const near = nearMisses(created);
    misses += near.length;
    for (const data of [created, ...near, ...Array.from({ length: 120 }, () => mutate(created, rand))]) {
      const echoed = new EchoedRequest();
      const fast = echoed.createdKnown('response.created', data);
      const ref = strict(data) as JsonObject | undefined;
      if (ref === undefined) refused++;
      if (fast === null) continue;
      read++;
      if (ref === undefined) {
        fail(`${s.name}: read what the strict parser refuses: ${label(data.slice(0, 300))}`);
        continue;
      }
      if (!sameJson(fast, ref)) fail(`${s.name}: a different object for ${label(data.slice(0, 300))}`);
      // the stream's state: created's kept instructions text, and its terminal frame read as strictly
      const instructions = (ref.response as JsonObject).instructions;
      if (echoed.span !== undefined && strict(data.slice(echoed.span[0], echoed.span[1])) !== instructions) fail(`${s.name}: the kept text is not the instructions: ${label(data.slice(0, 300))}`);
      if (typeof instructions === 'string' && echoed.span === undefined) fail(`${s.name}: no kept text for string instructions`);
    }
  }
  forget();
  t.equal(failures, 0, 'no disagreement');
  t.ok(read > 1500, `${read} created frames read with remembered texts (each equal to the strict parse)`);
  t.ok(refused > 1500, `${refused} mutated frames the strict parser refuses, none read`);
  t.ok(misses > 500, `${misses} near misses`);
  t.ok(ownRead >= 20, `${ownRead} streams' own created frames read with their texts remembered`);
});

t.test('a created frame with only one of the texts remembered; decoys elsewhere in the frame', async (t) => {
  let checked = 0;
  for (const s of STREAMS.filter((x) => x.name.endsWith('with tools'))) {
    const created = createdOf(s);
    const response = (parseStrict(created) as JsonObject).response as JsonObject;
    for (const keep of ['instructions', 'tools'] as const) {
      forget();
      responsesDecoder().sse({ event: 'response.created', data: created });
      (keep === 'instructions' ? KNOWN_TOOLS : KNOWN_INSTRUCTIONS).clear();
      const frames = [
        created,
        ...nearMisses(created),
        // the texts in a member before the instructions and one after the tools, the real ones other values
        JSON.stringify({ type: 'response.created', sequence_number: 0, response: { decoy: { instructions: response.instructions!, tools: response.tools! }, ...response, instructions: 'other', tools: [] } }),
        JSON.stringify({ type: 'response.created', sequence_number: 0, response: { ...response, instructions: null, tools: [{ type: 'web_search' }], metadata: { instructions: response.instructions!, tools: response.tools! } } }),
        JSON.stringify({ type: 'response.created', sequence_number: 0, response: { ...response, metadata: { tools: response.tools! } } }),
      ];
      for (const data of frames) {
        checked++;
        const echoed = new EchoedRequest();
        const fast = echoed.createdKnown('response.created', data);
        if (fast !== null && !sameJson(fast, parseStrict(data))) t.fail(`${s.name} (${keep} remembered): another object for ${label(data.slice(0, 300))}`);
        // then the terminal frame, with the texts this created left
        const terminal = s.frames.find(([event]) => event === 'response.completed' || event === 'response.incomplete');
        if (fast !== null && terminal !== undefined) {
          const end = echoed.terminal(terminal[0], terminal[1]);
          if (end !== null && !sameJson(end, parseStrict(terminal[1]))) t.fail(`${s.name}: the terminal frame read as another object`);
        }
      }
      if (parseResponseFrame('response.created', created) !== null && new EchoedRequest().createdKnown('response.created', created) === null) t.fail(`${s.name}: not read with its ${keep} remembered`);
    }
  }
  forget();
  t.ok(checked >= 200, `${checked} frames`);
});

/** the events as text to compare: every member, the native frame's data, object, through and kept included */
const eventsText = (events: CanonicalEvent[]): string => JSON.stringify(events);

function decodeFrames(frames: Frame[]): { events: CanonicalEvent[]; error: string | null } {
  const decoder = responsesDecoder();
  const events: CanonicalEvent[] = [];
  try {
    for (const [event, data] of frames) events.push(...decoder.sse({ event, data }));
  } catch (err) {
    return { events, error: String(err) };
  }
  return { events, error: null };
}

const byName = new Map(STREAMS.map((s) => [s.name, s]));

t.test('through the decoder: the same events and errors with texts remembered as with none', async (t) => {
  const rand = prng(0x13c1);
  let compared = 0;
  let known = 0;
  let errors = 0;
  for (const s of STREAMS) {
    const variants = [s.frames];
    // a mutated created frame, and one with the stream's type or sequence number wrong
    const at = s.frames.findIndex(([event]) => event === 'response.created');
    for (let i = 0; i < 12; i++) variants.push(s.frames.map((f, k): Frame => (k === at ? [f[0], mutate(f[1], rand)] : f)));
    variants.push(s.frames.map((f, k): Frame => (k === at ? ['response.in_progress', f[1]] : f)));
    for (const frames of variants) {
      forget();
      const strictRun = decodeFrames(frames);
      // remembered from the unmutated stream, as a later request of the same agent, and from the
      // same instructions echoed with tools (a created frame without them is in its layout: its
      // instructions then compared before the layout is tried)
      decodeFrames(s.frames.slice(at, at + 1));
      const sibling = byName.get(`${s.name.replace(/ with (spaced )?tools$/, '')} with tools`);
      if (sibling !== undefined) decodeFrames([sibling.frames.find(([event]) => event === 'response.created')!]);
      if (new EchoedRequest().createdKnown('response.created', frames[at]![1]) !== null) known++;
      const knownRun = decodeFrames(frames);
      compared++;
      if (strictRun.error !== knownRun.error) t.fail(`${s.name}: error ${knownRun.error} against ${strictRun.error}`);
      if (strictRun.error !== null) errors++;
      if (eventsText(knownRun.events) !== eventsText(strictRun.events)) t.fail(`${s.name}: other events`);
      for (const ev of knownRun.events) if (ev.native !== undefined && !sameJson(ev.native.parsed, parseStrict(ev.native.data))) t.fail(`${s.name}: ${ev.native.event} decoded to another object`);
    }
  }
  forget();
  t.ok(known > 200, `${known} of ${compared} streams had their created frame read with remembered texts`);
  t.ok(errors > 50, `${errors} refused alike`);
});

t.test('through the decode chain, whole, byte by byte and in random chunks: the same events', async (t) => {
  // (spaced tools hold raw newlines: no SSE data line)
  const picks = STREAMS.filter((s) => /(Codex-sized|escapes) instructions with tools$/.test(s.name));
  t.ok(picks.length >= 8, `${picks.length} streams`);
  for (const s of picks) {
    const bytes = Buffer.from(s.frames.map(([event, data]) => `event: ${event}\ndata: ${data}\n\n`).join(''));
    forget();
    const want = eventsText(decodeChunks([bytes], 'sse'));
    for (const how of CHUNKINGS) {
      for (const seed of how === 'random' ? [1, 2, 3] : [1]) {
        // remembered from a previous stream of the same agent
        const got = eventsText(decodeChunks(chunk(bytes, how, seed), 'sse'));
        if (got !== want) t.fail(`${s.name}: ${how} (seed ${seed})`);
      }
    }
  }
  forget();
});

t.test('copyJson: the strict parser\'s object, its own copy', async (t) => {
  const text = '{"b":1,"a":[{"__proto__":{"x":-0}},2,"s",null,true],"2":{},"1":[]}';
  const value = parseStrict(text);
  const copy = copyJson(value);
  t.ok(sameJson(copy, value));
  t.ok(sameJson(copy, parseStrict(text)));
  t.not(copy, value);
  t.not((copy as JsonObject).a, (value as JsonObject).a);
  t.ok(Object.hasOwn(((copy as JsonObject).a as JsonObject[])[0]!, '__proto__'), '__proto__ an own member');
});
