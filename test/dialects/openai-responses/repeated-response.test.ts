// A `response.in_progress` that repeats the `response.created` before it is read by comparing its
// text with created's (RepeatedResponse) instead of matching a layout. It must accept only what the
// strict parser accepts, and give the very object the strict parser builds: checked over every
// recorded Responses stream and the bench's, each in_progress frame followed by seeded mutations of
// it (a character deleted, inserted or replaced anywhere, its sequence number rewritten), and
// through the decoder, which then refuses what it refused before.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import type { JsonObject } from '../../../lib/chunks.js';
import { responsesDecoder } from '../../../lib/dialects/openai-responses/events.js';
import { RepeatedResponse } from '../../../lib/dialects/openai-responses/repeated-response.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { label, sameJson, strictValue as strict } from '../../json/json-assert.js';
import { editAt, pick, prng } from '../../json/json-gen.js';
import { fixture } from '../../helpers/paths.js';

interface Pair {
  name: string;
  created: string;
  inProgress: string;
}

function dataOf(text: string, event: string): string | undefined {
  const frame = text.split('\n\n').find((f) => f.startsWith(`event: ${event}\n`));
  return frame?.split('\n').find((l) => l.startsWith('data: '))?.slice(6);
}

function pairs(): Pair[] {
  const dir = fixture('upstream', 'openai-responses');
  const out: Pair[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.sse')).sort()) {
    const text = readFileSync(`${dir}/${name}`, 'utf8');
    const created = dataOf(text, 'response.created');
    const inProgress = dataOf(text, 'response.in_progress');
    if (created !== undefined && inProgress !== undefined) out.push({ name, created, inProgress });
  }
  // the bench's upstream (bench/upstream.ts): the support request's parameters echoed
  const response = {
    id: 'resp_bench_0001', object: 'response', created_at: 1767225600, status: 'in_progress', background: false, error: null, incomplete_details: null,
    instructions: 'You are "support"\n\u2028 é', max_output_tokens: null, model: 'gpt-bench', output: [], parallel_tool_calls: true, previous_response_id: null,
    reasoning: { effort: null, summary: null }, service_tier: 'default', store: false, temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' }, tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled', usage: null, metadata: {},
  };
  const frame = (type: string, seq: number): string => JSON.stringify({ type, sequence_number: seq, response });
  out.push({ name: 'bench', created: frame('response.created', 0), inProgress: frame('response.in_progress', 1) });
  out.push({ name: 'bench, large numbers', created: frame('response.created', 123456789012345), inProgress: frame('response.in_progress', 999999999999999) });
  return out;
}

const INSERTS = [' ', '"', '\\', '0', '9', ',', '{', '}', '[', ']', ':', 'n', 'u', '\u0001', 'é', 'x', '-', '.', 'e'];

function mutate(data: string, rand: () => number): string {
  const r = rand();
  if (r < 0.25) {
    // the sequence number rewritten: a leading zero, a sign, a fraction, an exponent, too many digits
    const at = data.indexOf('"sequence_number":') + '"sequence_number":'.length;
    const end = data.indexOf(',', at);
    return data.slice(0, at) + pick(rand, ['01', '-1', '1.0', '1e2', '0', '7', '1234567890123456', '00', '']) + data.slice(end);
  }
  const at = Math.floor(rand() * data.length);
  return editAt(data, at, r < 0.5 ? 'delete' : r < 0.75 ? 'insert' : 'replace', () => pick(rand, INSERTS));
}

t.test('an in_progress read as the created one again is the object the strict parser builds', async (t) => {
  const rand = prng(11);
  let repeated = 0;
  let refused = 0;
  let failures = 0;
  for (const p of pairs()) {
    const reader = new RepeatedResponse();
    reader.created(p.created, parseStrict(p.created) as JsonObject);
    // OpenAI's layout puts the sequence number second; some recordings have it last (the usual path then)
    const common = p.created.startsWith('{"type":"response.created","sequence_number":');
    t.equal(reader.inProgress(p.inProgress) !== null, common, `${p.name}: its in_progress is read as created's object: ${common}`);
    for (const data of [p.inProgress, ...Array.from({ length: 300 }, () => mutate(p.inProgress, rand))]) {
      const fast = reader.inProgress(data);
      if (fast === null) continue;
      repeated++;
      const ref = strict(data);
      if (ref === undefined && failures++ < 10) t.fail(`${p.name}: read what the strict parser refuses: ${label(data)}`);
      else if (!sameJson(fast, ref) && failures++ < 10) t.fail(`${p.name}: a different object for ${label(data)}`);
    }
    // a mutation the strict parser refuses is never read
    for (let i = 0; i < 300; i++) {
      const data = mutate(p.inProgress, rand);
      if (strict(data) === undefined) {
        refused++;
        if (reader.inProgress(data) !== null && failures++ < 10) t.fail(`${p.name}: read a frame the strict parser refuses: ${label(data)}`);
      }
    }
  }
  t.equal(failures, 0, 'no disagreement');
  t.ok(repeated > 50, `${repeated} frames read as created's object (and equal to the strict parse)`);
  t.ok(refused > 500, `${refused} mutated frames the strict parser refuses, none read`);
});

t.test('a created frame in another layout, or with another member: no in_progress is read from it', async (t) => {
  const response = { id: 'r', object: 'response', status: 'in_progress', model: 'm', output: [] };
  const inProgress = JSON.stringify({ type: 'response.in_progress', sequence_number: 1, response });
  for (const created of [
    JSON.stringify({ sequence_number: 0, type: 'response.created', response }),
    JSON.stringify({ type: 'response.created', sequence_number: 0, response }, null, 1),
    `{"type":"response.created","sequence_number":0,"response":${JSON.stringify(response)},"extra":1}`,
    `{"type":"response.created","sequence_number":1e0,"response":${JSON.stringify(response)}}`,
  ]) {
    const reader = new RepeatedResponse();
    reader.created(created, parseStrict(created) as JsonObject);
    t.equal(reader.inProgress(inProgress), null, label(created));
  }
  // 16 digits: past the layouts' 15, whose first 15 must not be read as the number (nor the rest compared from the 16th)
  const rest = `,"response":${JSON.stringify(response)}}`;
  const created = `{"type":"response.created","sequence_number":1234567890123456${rest}`;
  const reader = new RepeatedResponse();
  reader.created(created, parseStrict(created) as JsonObject);
  t.equal(reader.inProgress(`{"type":"response.in_progress","sequence_number":2234567890123456${rest}`), null, 'a 16-digit number: the usual path');
  const short = new RepeatedResponse();
  short.created(`{"type":"response.created","sequence_number":6${rest}`, parseStrict(`{"type":"response.created","sequence_number":6${rest}`) as JsonObject);
  t.equal(short.inProgress(`{"type":"response.in_progress","sequence_number":1234567890123456${rest}`), null, 'after a short one too');
});

t.test('through the decoder: the same events, and what was refused still is', async (t) => {
  for (const name of readdirSync(fixture('upstream', 'openai-responses')).filter((f) => f.endsWith('.sse'))) {
    const text = readFileSync(fixture('upstream', 'openai-responses', name), 'utf8');
    const created = dataOf(text, 'response.created');
    const inProgress = dataOf(text, 'response.in_progress');
    if (created === undefined || inProgress === undefined) continue;
    const decoder = responsesDecoder();
    const started = decoder.sse({ event: 'response.created', data: created });
    t.equal(started.length, 1, `${name}: created starts the message`);
    t.same(decoder.sse({ event: 'response.in_progress', data: inProgress }), [], `${name}: in_progress says nothing more`);
    // the same frame again: its sequence number is not after the last one
    t.throws(() => decoder.sse({ event: 'response.in_progress', data: inProgress }), /sequence_number/, `${name}: a repeated sequence number is refused`);
    const broken = responsesDecoder();
    broken.sse({ event: 'response.created', data: created });
    t.throws(() => broken.sse({ event: 'response.in_progress', data: `${inProgress.slice(0, -1)},}` }), /integrity/i, `${name}: a broken repeat is refused`);
  }
});
