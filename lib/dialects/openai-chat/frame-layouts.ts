// The other frequent Chat Completions frames recognised by their exact layout (lib/json/layout.ts),
// after the content chunk (chunk-layout.ts): the first (role) chunk, the finish chunk, the usage chunk
// and the tool-call chunks (the first with id and name, then the argument fragments). Parsed without
// the general parser, exactly as strictly (a frame in any other layout, a near miss included, takes
// the strict parser), with where the `model` value lies for the through path (encode-through.ts).
// Two orders of the members are OpenAI's own: `usage: null` after `choices` (text answers) or before
// (tool calls); the optional members are those OpenAI and the servers that copy it may leave out.
import type { JsonObject } from '../../chunks.js';
import { COUNTS, compileLayout, INT, optional, spanned, STRING, STRING_OR_NULL, type Layout, type Members, type Template } from '../../json/layout.js';

const HEAD: Members = {
  id: STRING,
  object: 'chat.completion.chunk',
  created: INT,
  model: spanned('model'),
  service_tier: optional(STRING),
  system_fingerprint: optional(STRING_OR_NULL),
};

const choice = (delta: Members, finish: Template): Template[] => [{ index: INT, delta, logprobs: optional(null), finish_reason: finish }];
/** `usage: null` (when present) after `choices` */
const after = (choices: Template, usage: Template = null): Layout => compileLayout({ ...HEAD, choices, usage: optional(usage), obfuscation: optional(STRING) });
/** `usage: null` before `choices` */
const before = (choices: Template): Layout => compileLayout({ ...HEAD, usage: null, choices, obfuscation: optional(STRING) });

const ARGS = choice({ tool_calls: [{ index: INT, function: { arguments: STRING } }] }, null);
const CALL = choice({ tool_calls: [{ index: INT, id: STRING, type: 'function', function: { name: STRING, arguments: STRING } }] }, null);
const FIRST = choice({ role: 'assistant', content: STRING_OR_NULL, refusal: optional(null) }, null);
const FINISH = choice({}, STRING);

/** OpenAI's usage object, then any other of plain counts (lib/json/layout.ts COUNTS, slower to read) */
export const OPENAI_USAGE: Members = {
  prompt_tokens: INT, completion_tokens: INT, total_tokens: INT,
  prompt_tokens_details: { cached_tokens: INT, audio_tokens: INT },
  completion_tokens_details: { reasoning_tokens: INT, audio_tokens: INT, accepted_prediction_tokens: INT, rejected_prediction_tokens: INT },
};
const usageChunk = (usage: Template): Layout => compileLayout({ ...HEAD, choices: [], usage, obfuscation: optional(STRING) });
const [OPENAI_USAGE_CHUNK, USAGE_CHUNK] = [usageChunk(OPENAI_USAGE), usageChunk(COUNTS)];
const USAGE: Layout = (data) => OPENAI_USAGE_CHUNK(data) ?? USAGE_CHUNK(data);

/** The one layout a frame can be in, told by what follows `"choices":[` and its `"delta":{` (so one expression runs). */
function candidate(data: string): Layout | undefined {
  const at = data.indexOf('"choices":[');
  if (at < 0) return undefined;
  if (data.charCodeAt(at + 11) === 0x5d /* ] */) return USAGE;
  const first = data.startsWith('"usage":null,', at - 13);
  const delta = data.indexOf('"delta":{', at) + 9;
  if (delta === 8) return undefined;
  if (data.charCodeAt(delta) === 0x7d /* } */) return first ? BEFORE_FINISH : AFTER_FINISH;
  if (data.startsWith('"role"', delta)) return first ? BEFORE_FIRST : AFTER_FIRST;
  if (!data.startsWith('"tool_calls":[{"index":', delta)) return undefined;
  // argument fragments (no id) make up most of a tool call's stream
  const call = data.startsWith('"id"', data.indexOf(',', delta + 23) + 1);
  return call ? (first ? BEFORE_CALL : AFTER_CALL) : first ? BEFORE_ARGS : AFTER_ARGS;
}

const [BEFORE_ARGS, AFTER_ARGS, BEFORE_CALL, AFTER_CALL] = [before(ARGS), after(ARGS), before(CALL), after(CALL)];
const [BEFORE_FIRST, AFTER_FIRST, BEFORE_FINISH, AFTER_FINISH] = [before(FIRST), after(FIRST), before(FINISH), after(FINISH)];

export interface RecognisedChunk {
  parsed: JsonObject;
  /** where the `model` value (with its quotes) lies in the frame */
  modelSpan: [number, number];
  /** the usage chunk: where its `usage` object lies in the frame */
  usageSpan?: [number, number];
}

const USAGE_AT = '"choices":[],"usage":';
const OBFUSCATION_AT = ',"obfuscation":"';

/**
 * Where a recognised usage chunk's `usage` object lies: after `"choices":[],"usage":`, up to the
 * `obfuscation` member or the last `}`. Found by text: in a recognised frame (no whitespace) neither
 * `,"` nor `"choices":[],"usage":` can occur inside a string (every quote in one is escaped), so the
 * one occurrence outside the strings is the member itself.
 */
function usageSpan(data: string, parsed: JsonObject, after: number): [number, number] {
  const start = data.indexOf(USAGE_AT, after) + USAGE_AT.length;
  return [start, parsed.obfuscation === undefined ? data.length - 1 : data.lastIndexOf(OBFUSCATION_AT)];
}

export function recogniseChunk(data: string): RecognisedChunk | null {
  const layout = candidate(data);
  const r = layout?.(data) ?? null;
  if (r === null) return null;
  const modelSpan = r.spans.model!;
  return layout === USAGE ? { parsed: r.parsed, modelSpan, usageSpan: usageSpan(data, r.parsed, modelSpan[1]) } : { parsed: r.parsed, modelSpan };
}
