// Shared by the echoed-texts tests: every recorded Responses stream (fixtures/ and ../shared's) and the
// bench's, each echoing several instructions and tools (Codex-sized among them); seeded mutations and
// near misses of a created frame (instructions one character off, tools reordered or spaced, a key
// moved); and forgetting what the decoder remembered.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../../../lib/chunks.js';
import { KNOWN_INSTRUCTIONS, KNOWN_TOOLS } from '../../../lib/dialects/openai-responses/echoed-texts.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { editAt, pick } from '../../json/json-gen.js';
import { DIR, withEcho } from './harness.js';

export const SHARED = join(DIR, '..', '..', '..', '..', 'shared', 'fixtures', 'upstream', 'openai-responses');
export const RESPONSE_EVENT = /^\{"type":"response\.(created|in_progress|completed|incomplete|failed)"/;

export type Frame = [string, string];
export interface Stream {
  name: string;
  frames: Frame[];
}

export function framesOf(text: string): Frame[] {
  const out: Frame[] = [];
  for (const block of text.split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event !== undefined && data !== undefined) out.push([event, data]);
  }
  return out;
}

export const forget = (): void => {
  KNOWN_INSTRUCTIONS.clear();
  KNOWN_TOOLS.clear();
};

let rules = 'You are a coding agent.\n';
for (let i = 0; rules.length < 12_500; i++) rules += `- Rule ${i}: when the user says "fix it", read the file first; run \`npm test\`.\tNever guess.\n`;
export const CODEX_TOOLS = Array.from({ length: 10 }, (_, i) => ({
  type: 'function', name: `tool_${i}`, description: `Runs operation ${i}.\nUse it for "op ${i}".`, strict: false,
  parameters: { type: 'object', properties: { path: { type: 'string', description: 'Absolute path' }, limit: { type: 'integer' } }, required: ['path'], additionalProperties: false },
}));

/** instructions to echo: [name, value, its JSON text] */
export const ECHOES: [string, string, string][] = [
  ['plain', 'Be brief.', JSON.stringify('Be brief.')],
  ['escapes', 'You are "support"\n\u2028 é 😀 \\ end', JSON.stringify('You are "support"\n\u2028 é 😀 \\ end')],
  ['Codex-sized', rules, JSON.stringify(rules)],
  ['\\u and \\/ escapes', 'Use \u00e9 and / here', JSON.stringify('Use \u00e9 and / here').replace('é', '\\u00e9').replace('/', '\\/')],
];
export const TOOL_ECHOES: [string, string | null][] = [
  ['', null],
  [' with tools', JSON.stringify(CODEX_TOOLS)],
  [' with spaced tools', JSON.stringify(CODEX_TOOLS.slice(0, 3), null, 1).replace('é', '\\u00e9')],
];


export function streams(): Stream[] {
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

export const STREAMS = streams();
export const createdOf = (s: Stream): string => s.frames.find(([event]) => event === 'response.created')![1];

export const INSERTS = [' ', '"', '\\', '0', ',', '{', '}', '[', ']', ':', 'n', 'u', '\u0001', 'é', 'x', 'null', '"a"'];

/** a character deleted, inserted or replaced, anywhere or (mostly) within 20 characters of where the instructions or tools begin or end */
export function mutate(data: string, rand: () => number): string {
  const marks = [data.indexOf('"instructions":'), data.indexOf('"max_output_tokens"'), data.lastIndexOf('"tools":'), data.lastIndexOf('"top_p"')].filter((i) => i >= 0);
  const near = marks.length > 0 && rand() < 0.7;
  const at = near ? Math.max(0, pick(rand, marks) + Math.floor(rand() * 40) - 20) : Math.floor(rand() * data.length);
  const r = rand();
  return editAt(data, at, r < 0.33 ? 'delete' : r < 0.66 ? 'insert' : 'replace', () => pick(rand, INSERTS));
}

/** near misses of a created frame: valid JSON that differs from it in its instructions or tools text */
export function nearMisses(data: string): string[] {
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

