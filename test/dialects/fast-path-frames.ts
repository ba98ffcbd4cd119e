// The streams the fast-path tests run (fast-path-streams.test.ts in process, and
// ../native/fast-path-gateway.test.ts through bin/gateway): the recorded Chat and Messages streams
// (fixtures/upstream) and the bench's, a seeded mutation of one of their frames, and their SSE text
// as it came or with every frame's JSON after a space, which no layout recogniser accepts (the
// strict parser's path for every frame).
import { readdirSync, readFileSync } from 'node:fs';
import { frames, type Frame } from '../helpers/replay.js';
import { fixture } from '../helpers/paths.js';

export type Dialect = 'anthropic' | 'openai-chat';

/** The SSE text of `list`; `strict`: a space before each frame's JSON. */
export function sse(list: readonly Frame[], strict: boolean): Buffer {
  let text = '';
  for (const f of list) {
    if (f.event !== undefined) text += `event: ${f.event}\n`;
    text += `data: ${strict && f.data.startsWith('{') ? ' ' : ''}${f.data}\n\n`;
  }
  return Buffer.from(text);
}

export function recorded(dialect: Dialect): [string, Frame[]][] {
  const dir = fixture('upstream', dialect);
  return readdirSync(dir).filter((n) => n.endsWith('.sse')).sort().map((n) => [n, frames(readFileSync(`${dir}/${n}`, 'utf8'))]);
}

const TEXTS = ['tok0 xxx', 'a "quoted" \\ line\n', 'é🎉\u2028', '\t\u0001', ''];

export function bench(dialect: Dialect): [string, Frame[]] {
  if (dialect === 'anthropic') {
    const ev = (event: string, data: object): Frame => ({ event, data: JSON.stringify({ type: event, ...data }) });
    return ['bench', [
      ev('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'bench-model', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 250, output_tokens: 1 } } }),
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ...TEXTS.map((text) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }),
      ev('message_stop', {}),
    ]];
  }
  const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1767225600, model: 'bench-model', service_tier: 'default', system_fingerprint: 'fp_bench' };
  const c = (choices: unknown[], usage: unknown = null): Frame => ({ event: undefined, data: JSON.stringify({ ...head, choices, usage }) });
  const choice = (delta: unknown, finish: string | null = null): unknown[] => [{ index: 0, delta, logprobs: null, finish_reason: finish }];
  return ['bench', [
    c(choice({ role: 'assistant', content: '', refusal: null })),
    ...TEXTS.map((content) => c(choice({ content }))),
    c(choice({}, 'stop')),
    c([], { prompt_tokens: 250, completion_tokens: 9, total_tokens: 259 }),
    { event: undefined, data: '[DONE]' },
  ]];
}

const INSERTS = [' ', '"', '\\', '0', '9', ',', '{', '}', '[', ']', ':', 'n', 'u', '\u0001', 'é', 'x', '\\n', '\\u00e9', '\\ud83c'];

/** One frame of `list` changed; content and text deltas (the fast paths' frames) twice as often. */
export function mutate(list: readonly Frame[], rand: () => number): Frame[] {
  const json = list.map((f, i) => i).filter((i) => list[i]!.data.startsWith('{'));
  const deltas = json.filter((i) => /"(content|text)":"/.test(list[i]!.data));
  const pool = rand() < 0.5 && deltas.length > 0 ? deltas : json;
  const at = pool[Math.floor(rand() * pool.length)]!;
  const data = list[at]!.data;
  const c = INSERTS[Math.floor(rand() * INSERTS.length)]!;
  const r = rand();
  let next: string;
  if (r < 0.2) next = data.replace(/"(content|text)":"((?:[^"\\]|\\.)*)"/, (_m, key: string) => `"${key}":"${c}${c === '"' ? '' : 'x'}"`);
  else {
    const p = Math.floor(rand() * data.length);
    next = r < 0.45 ? data.slice(0, p) + data.slice(p + 1) : r < 0.7 ? data.slice(0, p) + c + data.slice(p) : data.slice(0, p) + c + data.slice(p + 1);
  }
  return list.map((f, i) => (i === at ? { event: f.event, data: next } : f));
}


/** what a delta's text is replaced with by `edges`: raw control characters, bad and rare escapes */
const EDGE_TEXTS = ['\u0001', '\t', '\u001f', '\\x', '\\u12', '\\u12G4', '"', '\\', '\\ud83c', '\\"\\/\\b', 'é\u2028', ''];

/** `list` with its first text delta's text (its JSON, between the quotes) replaced by each of EDGE_TEXTS */
export function edges(list: readonly Frame[]): Frame[][] {
  const at = list.findIndex((f) => /"(content|text)":"[^"]/.test(f.data));
  return EDGE_TEXTS.map((text) =>
    list.map((f, i) => (i === at ? { event: f.event, data: f.data.replace(/"(content|text)":"((?:[^"\\]|\\.)*)"/, (_m, key: string) => `"${key}":"${text}"`) } : f)),
  );
}
