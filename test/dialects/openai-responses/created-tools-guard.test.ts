// recogniseEvent's shortcut (frame-layouts.ts): a created or in_progress frame without `"tools":[]`
// goes to the strict parser without trying the layouts' expressions. It must change nothing: over
// every recorded Responses frame (this repo's fixtures and ../shared's), a bench-shaped and a
// Codex-shaped stream (12.5 KB of instructions, ten tools) and thousands of seeded mutations of
// their Response frames, recogniseEvent gives exactly what the layouts themselves give; the
// Codex-shaped created frame really takes the shortcut; and that stream decodes to the same events
// whole, byte by byte and in random chunks.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { LAYOUTS, mayHaveLayout, recogniseEvent } from '../../../lib/dialects/openai-responses/frame-layouts.js';
import { recognise } from '../../../lib/json/layout.js';
import { editAt, prng } from '../../json/json-gen.js';
import { CHUNKINGS, chunk } from '../../helpers/replay.js';
import { DIR, decodeChunks } from './harness.js';

const SHARED = join(DIR, '..', '..', '..', '..', 'shared', 'fixtures', 'upstream', 'openai-responses');

interface Frame {
  event: string;
  data: string;
}

function framesOf(text: string): Frame[] {
  const out: Frame[] = [];
  for (const block of text.split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event !== undefined && data !== undefined) out.push({ event, data });
  }
  return out;
}

const sse = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** a stream as OpenAI writes one, with these echoed instructions and tools */
function stream(instructions: string | null, tools: object[]): string {
  const item = { id: 'msg_1', type: 'message', status: 'completed', content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Hi there' }], role: 'assistant' };
  const response = (status: string, output: object[], usage: object | null): object => ({
    id: 'resp_1', object: 'response', created_at: 1767225600, status, background: false, error: null, incomplete_details: null, instructions,
    max_output_tokens: null, model: 'gpt-5', output, parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null },
    service_tier: 'default', store: false, temperature: 1, text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: 'auto', tools,
    top_p: 1, truncation: 'disabled', usage, metadata: {},
  });
  const usage = { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 };
  const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };
  return (
    sse('response.created', { sequence_number: 0, response: response('in_progress', [], null) }) +
    sse('response.in_progress', { sequence_number: 1, response: response('in_progress', [], null) }) +
    sse('response.output_item.added', { sequence_number: 2, output_index: 0, item: { ...item, status: 'in_progress', content: [] } }) +
    sse('response.content_part.added', { sequence_number: 3, ...at, part: { type: 'output_text', annotations: [], logprobs: [], text: '' } }) +
    sse('response.output_text.delta', { sequence_number: 4, ...at, delta: 'Hi', logprobs: [] }) +
    sse('response.output_text.delta', { sequence_number: 5, ...at, delta: ' there', logprobs: [] }) +
    sse('response.output_item.done', { sequence_number: 6, output_index: 0, item }) +
    sse('response.completed', { sequence_number: 7, response: response('completed', [item], usage) })
  );
}

let rules = 'You are a coding agent.\n';
for (let i = 0; rules.length < 12_500; i++) rules += `- Rule ${i}: when the user says "fix it", read the file first; run \`npm test\`.\tNever guess.\n`;
const TOOLS = Array.from({ length: 10 }, (_, i) => ({
  type: 'function', name: `tool_${i}`, description: `Runs operation ${i}.`, strict: false,
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
}));
const CODEX = stream(rules, TOOLS);
const BENCH = stream(null, []);

const recorded: string[] = [];
for (const dir of [DIR, SHARED]) {
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.sse'))) recorded.push(readFileSync(join(dir, f), 'utf8'));
}

/** what the layouts themselves make of the frame (no shortcut), as JSON text to compare */
const direct = (f: Frame): string => JSON.stringify(LAYOUTS.has(f.event) ? recognise(LAYOUTS.get(f.event)!, f.data) : null);
const viaEvent = (f: Frame): string => JSON.stringify(recogniseEvent(f.event, f.data));

t.test('every recorded frame, and the bench- and Codex-shaped ones: the same as the layouts give', async (t) => {
  let frames = 0;
  let matched = 0;
  for (const text of [...recorded, BENCH, CODEX]) {
    for (const f of framesOf(text)) {
      frames++;
      const want = direct(f);
      if (want !== 'null') matched++;
      if (viaEvent(f) !== want) t.fail(`${f.event}: ${f.data.slice(0, 120)}`);
    }
  }
  t.ok(recorded.length >= 9, `${recorded.length} recorded streams`);
  t.ok(matched > 10, `${matched} of ${frames} frames recognised by a layout (the comparison is not vacuous)`);
});

t.test('the Codex-shaped created frame takes the shortcut; the bench-shaped one is read by its layout', async (t) => {
  const codex = framesOf(CODEX)[0]!;
  const bench = framesOf(BENCH)[0]!;
  t.equal(codex.event, 'response.created');
  t.equal(mayHaveLayout(codex.event, codex.data), false, 'no "tools":[] in a created frame with tools');
  t.equal(recogniseEvent(codex.event, codex.data), null);
  t.equal(mayHaveLayout(bench.event, bench.data), true);
  t.not(recogniseEvent(bench.event, bench.data), null, 'the bench-shaped created frame is in its layout');
});

t.test('seeded mutations of the Response frames: the same as the layouts give', async (t) => {
  const rand = prng(0x7001);
  const pieces = ['"tools":[]', '"tools":[ ]', '"tools":[{}]', ']', '[', '"', ',', ' ', '\\', 'x', '0', '}'];
  const targets = [...recorded, BENCH, CODEX].flatMap(framesOf).filter((f) => f.event === 'response.created' || f.event === 'response.in_progress');
  let n = 0;
  for (const f of targets) {
    for (let k = 0; k < 60; k++) {
      let data = f.data;
      // near the tools member half the time: where the shortcut's text is
      const tools = data.indexOf('"tools":');
      const at = tools >= 0 && rand() < 0.5 ? Math.min(data.length - 1, tools + Math.floor(rand() * 14)) : Math.floor(rand() * data.length);
      const edit = (['delete', 'insert', 'replace'] as const)[Math.floor(rand() * 3)]!;
      data = editAt(data, at, edit, () => pieces[Math.floor(rand() * pieces.length)]!);
      if (rand() < 0.2) data = data.replace('"tools":[]', rand() < 0.5 ? '"tools": []' : `"tools":${JSON.stringify(TOOLS.slice(0, 1))}`);
      const m = { event: f.event, data };
      n++;
      if (viaEvent(m) !== direct(m)) t.fail(`mutation ${k} of ${f.event}: ${data.slice(0, 160)}`);
    }
  }
  t.ok(n >= 600, `${n} mutations compared`);
});

t.test('the Codex-shaped stream decodes the same whole, byte by byte and in random chunks', async (t) => {
  const buf = Buffer.from(CODEX);
  const whole = JSON.stringify(decodeChunks([buf], 'sse').map(({ native: _n, ...rest }) => rest));
  t.match(whole, /"message-start"/);
  for (const how of CHUNKINGS) {
    for (const seed of [1, 2, 3]) {
      const got = JSON.stringify(decodeChunks(chunk(buf, how, seed), 'sse').map(({ native: _n, ...rest }) => rest));
      t.equal(got, whole, `${how} (seed ${seed})`);
      if (how !== 'random') break;
    }
  }
});
