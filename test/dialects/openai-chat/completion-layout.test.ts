// A whole `chat.completion` recognised by its layout (lib/dialects/openai-chat/completion-layout.ts)
// against the strict parser and the general path, over compact answers (the bench's, the recorded
// ones written compactly, variants of their optional members, escapes and non-ASCII text) and
// thousands of seeded mutations of them: whatever the layout accepts, the strict parser accepts and
// makes the very same object; whatever it refuses, the layout refuses; and the native answer a Chat
// client gets (through-json.ts) is byte for byte the one the general path (a scan of every member)
// makes. And the answers the layout is for are really recognised, so the comparison is not vacuous.
import { readFileSync } from 'node:fs';
import t from 'tap';
import type { JsonObject, NativeFrame } from '../../../lib/chunks.js';
import { recogniseCompletion } from '../../../lib/dialects/openai-chat/completion-layout.js';
import { decodeChatCompletion } from '../../../lib/dialects/openai-chat/message.js';
import { throughCompletion, type CompletionChanges } from '../../../lib/dialects/openai-chat/through-json.js';
import { parseStrict } from '../../../lib/json/strict-parse.js';
import { label, sameJson } from '../../json/json-assert.js';
import { prng } from '../../json/json-gen.js';
import { fixture } from '../../helpers/paths.js';

const USAGE = {
  prompt_tokens: 310, completion_tokens: 50, total_tokens: 360, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};
const answer = (message: object, extra: object = {}, usage: object = USAGE): string =>
  JSON.stringify({
    id: 'chatcmpl-bench', object: 'chat.completion', created: 1767225600, model: 'gpt-bench',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: 'stop' }], usage, ...extra,
  });
const BENCH = answer({ content: 'tok0 xxxtok1 xxxtok2 xxx', refusal: null, annotations: [] }, { service_tier: 'default', system_fingerprint: 'fp_bench' });

const ANSWERS = [
  BENCH,
  answer({ content: 'plain' }),
  answer({ content: 'a "quoted" \\ }],"usage":{ ,"created":1 ,"message":{ é 😀 \u2028 \n\t' }, { system_fingerprint: null }),
  answer({ content: '', refusal: null }, {}, { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3, cost: 0, prompt_tokens_details: null }),
  answer({ content: 'x', annotations: [] }, { service_tier: 'flex' }),
  JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'no logprobs' }, finish_reason: 'length' }], usage: USAGE }),
  // the recorded answers, written compactly (OpenAI indents its own, which the layout leaves to the general path)
  ...['text', 'length', 'cached-tokens', 'refusal', 'tool-calls-parallel', 'web-search-annotations'].map((name) =>
    JSON.stringify(JSON.parse(readFileSync(fixture('upstream', 'openai-chat', `${name}.json`), 'utf8')))),
];

function strict(data: string): { value: unknown } | { error: string } {
  try {
    return { value: parseStrict(data) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const CHANGES: CompletionChanges = { created: 1767225601, model: 'openai/served', usage: { prompt_tokens: 310, cost: 0.001 }, gateway: { routed: false } };

/** '' when the layout agrees with the strict parser and the general path on `data` (or steps aside), else what differs */
function disagreement(data: string): string {
  const fast = recogniseCompletion(data);
  if (fast === null) return '';
  const ref = strict(data);
  if ('error' in ref) return `recognised what the strict parser refuses (${ref.error}): ${label(data)}`;
  if (!sameJson(fast.parsed, ref.value)) return `a different object: ${label(JSON.stringify(fast.parsed))}`;
  if (JSON.parse(data.slice(...fast.modelSpan)) !== fast.parsed.model) return `the model span: ${label(data)}`;
  const frame: NativeFrame = { dialect: 'openai-chat', event: 'chat.completion', data, parsed: fast.parsed };
  const finish = ((fast.parsed.choices as JsonObject[])[0]!.finish_reason === 'length' ? { kind: 'length' } : null) as Parameters<typeof throughCompletion>[1];
  const general = throughCompletion(frame, finish, CHANGES);
  const layout = throughCompletion({ ...frame, modelSpan: fast.modelSpan }, finish, CHANGES);
  if (general !== layout) return `a different native answer: ${label(String(layout))} vs ${label(String(general))}`;
  return '';
}

t.test('compact answers: recognised exactly as the strict parser parses them, edited as the general path edits them', async (t) => {
  for (const data of ANSWERS) {
    const why = disagreement(data);
    if (why !== '') t.fail(why);
  }
  t.equal(ANSWERS.filter((a) => recogniseCompletion(a) !== null).length, 9, 'the plain answers are recognised (not the tool calls, the annotations)');
  const frame = decodeChatCompletion(BENCH)[0]!.native!;
  t.same(frame.modelSpan, recogniseCompletion(BENCH)!.modelSpan, "the decoder takes the layout's path for the bench's answer");
  const through = throughCompletion(frame, null, CHANGES);
  t.ok(through !== null, 'which goes through');
  t.same(JSON.parse(through!), { ...JSON.parse(BENCH), created: 1767225601, model: 'openai/served', usage: CHANGES.usage, gateway: { routed: false }, choices: [{ index: 0, message: { role: 'assistant', content: 'tok0 xxxtok1 xxxtok2 xxx', refusal: null, annotations: [], tool_calls: null, reasoning: null, reasoning_details: null }, logprobs: null, finish_reason: 'stop' }] });
  t.equal(recogniseCompletion(readFileSync(fixture('upstream', 'openai-chat', 'text.json'), 'utf8')), null, 'an indented answer takes the general path');
});

const INSERTS = [' ', '"', '\\', '0', '9', ',', '{', '}', '[', ']', ':', 'e', '-', '.', '\u0001', 'é', 'n', 'u'];

/** One seeded mutation of `data`: a character deleted, inserted or replaced, a member repeated or rewritten. */
function mutate(data: string, rand: () => number): string {
  const at = Math.floor(rand() * data.length);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const r = rand();
  if (r < 0.25) return data.slice(0, at) + data.slice(at + 1);
  if (r < 0.5) return data.slice(0, at) + pick(INSERTS) + data.slice(at);
  if (r < 0.65) return data.slice(0, at) + pick(INSERTS) + data.slice(at + 1);
  const members = [...data.matchAll(/"([A-Za-z_]+)":("[^"\\]*"|-?\d+(?:\.\d+)?|null|true|false|\[\]|\{\})/g)];
  if (members.length === 0) return data;
  const m = pick(members);
  const end = m.index + m[0].length;
  if (r < 0.75) return `${data.slice(0, end)},${m[0]}${data.slice(end)}`; // a duplicate key
  if (r < 0.8) return `${data.slice(0, end)},"__proto__":1${data.slice(end)}`;
  const value = pick(['12345678901234567', '1e400', '-1', '01', '1.0', '-0', '"x"', '"\\u0041\\n\\ud83d\\ude00"', '"a\\q"', 'null', 'true', '{}', '[]', '{"a":1}', '[1]']);
  return `${data.slice(0, m.index)}"${m[1]}":${value}${data.slice(end)}`;
}

t.test('mutations: the layout accepts only what the strict parser accepts, and agrees on it and on the native answer', async (t) => {
  const rand = prng(21);
  let accepted = 0;
  let refused = 0;
  let failures = 0;
  for (const data of ANSWERS) {
    for (let i = 0; i < 300; i++) {
      const m = mutate(data, rand);
      const why = disagreement(m);
      if (why !== '' && failures++ < 10) t.fail(why);
      if (recogniseCompletion(m) !== null) accepted++;
      else if ('error' in strict(m)) refused++;
    }
  }
  t.equal(failures, 0, 'no disagreement');
  t.ok(accepted > 300 && refused > 300, `both sides exercised (${accepted} recognised, ${refused} refused by both)`);
});
