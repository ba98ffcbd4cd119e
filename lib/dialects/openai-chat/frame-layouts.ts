// The other frequent Chat Completions frames recognised by their exact layout (lib/json/layout.ts),
// after the content chunk (chunk-layout.ts): the first (role) chunk, the finish chunk, the usage chunk
// and the tool-call chunks (the first with id and name, then the argument fragments). Parsed without
// the general parser, exactly as strictly (a frame in any other layout, a near miss included, takes
// the strict parser), with where the `model` value lies for the through path (encode-through.ts).
// Two orders of the members are OpenAI's own: `usage: null` after `choices` (text answers) or before
// (tool calls); the optional members are those OpenAI and the servers that copy it may leave out.
import type { JsonObject } from '../../chunks.js';
import { COUNTS, compileLayout, INT, optional, recognise, spanned, STRING, STRING_OR_NULL, type Layout, type Members, type Template } from '../../json/layout.js';

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

/** most frequent first: argument fragments make up most of a tool call's stream */
const LAYOUTS: readonly Layout[] = [
  before(ARGS), after(ARGS), after(FIRST), after(FINISH), compileLayout({ ...HEAD, choices: [], usage: COUNTS, obfuscation: optional(STRING) }),
  before(FIRST), before(FINISH), before(CALL), after(CALL),
];

export interface RecognisedChunk {
  parsed: JsonObject;
  /** where the `model` value (with its quotes) lies in the frame */
  modelSpan: [number, number];
}

export function recogniseChunk(data: string): RecognisedChunk | null {
  const r = recognise(LAYOUTS, data);
  return r === null ? null : { parsed: r.parsed, modelSpan: r.spans.model! };
}
