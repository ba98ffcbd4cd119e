// The other frequent Responses events recognised by their exact layout (lib/json/layout.ts), keyed by
// event name, after the text delta (delta-layout.ts): the Response events (created, in_progress,
// completed, incomplete), the output items' added / done events (a message, a function call, a
// reasoning item), the content part and text `done` events and the function call argument deltas.
// Parsed without the general parser, exactly as strictly (an event in any other layout, a near miss
// included, takes the strict parser). The layouts are OpenAI's (member order as the API writes it;
// the optional members those its versions and the servers that copy it may leave out). A message
// item's `output_item.done` comes with where its text lies (`text` span): a Responses client's
// final frames keep those bytes (client-encode-items.ts).
import {
  BOOL, compileLayout, INT, INT_OR_NULL, NUMBER, optional, recognise, spanned, STRING, STRING_OR_NULL,
  type Layout, type Members, type Recognised, type Template,
} from '../../json/layout.js';

const event = (type: string, members: Members): Layout => compileLayout({ type, sequence_number: INT, ...members });

function response(output: Template, usage: Template, incomplete: Template = null): Members {
  return {
    id: STRING, object: 'response', created_at: INT, status: STRING, background: optional(BOOL), error: null,
    incomplete_details: incomplete, instructions: STRING_OR_NULL, max_output_tokens: INT_OR_NULL,
    max_tool_calls: optional(INT_OR_NULL), model: STRING, output, parallel_tool_calls: BOOL, previous_response_id: STRING_OR_NULL,
    prompt_cache_key: optional(STRING_OR_NULL), prompt_cache_retention: optional(STRING_OR_NULL),
    reasoning: { effort: STRING_OR_NULL, summary: STRING_OR_NULL }, safety_identifier: optional(STRING_OR_NULL),
    service_tier: STRING_OR_NULL, store: BOOL, temperature: NUMBER, text: { format: { type: 'text' }, verbosity: optional(STRING) },
    tool_choice: STRING, tools: [], top_logprobs: optional(INT), top_p: NUMBER, truncation: STRING, usage,
    user: optional(STRING_OR_NULL), metadata: {},
  };
}

const TEXT_PART: Members = { type: 'output_text', annotations: [], logprobs: optional([]), text: STRING };
const AT: Members = { item_id: STRING, output_index: INT, content_index: INT };
const message = (text: Template): Members => ({
  id: STRING, type: 'message', status: STRING, content: [{ type: 'output_text', annotations: [], logprobs: [], text }], role: 'assistant',
});
const CALL = (status: Template): Members => ({ id: STRING, type: 'function_call', status, arguments: STRING, call_id: STRING, name: STRING });
const REASONING: Members = { id: STRING, type: 'reasoning', encrypted_content: optional(STRING), summary: [] };

/** the usage of a Response, as OpenAI writes it */
const USAGE: Members = {
  input_tokens: INT, input_tokens_details: { cached_tokens: INT }, output_tokens: INT, output_tokens_details: { reasoning_tokens: INT }, total_tokens: INT,
};

const started = (type: string): Layout => event(type, { response: response([], null) });
const finished = (type: string, incomplete: Template = null): Layout[] => [
  event(type, { response: response([message(STRING)], USAGE, incomplete) }),
  event(type, { response: response([CALL('completed')], USAGE, incomplete) }),
];

/** each event's layouts (exported for the tests, which hold recogniseEvent's shortcut to them) */
export const LAYOUTS: ReadonlyMap<string, readonly Layout[]> = new Map<string, readonly Layout[]>([
  ['response.created', [started('response.created')]],
  ['response.in_progress', [started('response.in_progress')]],
  [
    'response.output_item.added',
    [
      event('response.output_item.added', { output_index: INT, item: { id: STRING, type: 'message', status: STRING, content: [], role: 'assistant' } }),
      event('response.output_item.added', { output_index: INT, item: CALL(STRING) }),
      event('response.output_item.added', { output_index: INT, item: REASONING }),
    ],
  ],
  ['response.content_part.added', [event('response.content_part.added', { ...AT, part: TEXT_PART })]],
  ['response.function_call_arguments.delta', [event('response.function_call_arguments.delta', { item_id: STRING, output_index: INT, delta: STRING, obfuscation: optional(STRING) })]],
  ['response.function_call_arguments.done', [event('response.function_call_arguments.done', { item_id: STRING, output_index: INT, arguments: STRING })]],
  ['response.output_text.done', [event('response.output_text.done', { ...AT, text: STRING, logprobs: optional([]) })]],
  ['response.content_part.done', [event('response.content_part.done', { ...AT, part: TEXT_PART })]],
  [
    'response.output_item.done',
    [
      event('response.output_item.done', { output_index: INT, item: message(spanned('text')) }),
      event('response.output_item.done', { output_index: INT, item: CALL('completed') }),
      event('response.output_item.done', { output_index: INT, item: REASONING }),
    ],
  ],
  ['response.completed', finished('response.completed')],
  ['response.incomplete', finished('response.incomplete', { reason: STRING })],
]);

/**
 * Text every layout of created and in_progress has: its Response's `"tools":[]` (the layouts are for the
 * Responses with no tools; the member is written with no whitespace). A frame without that text is
 * in none of them, so it goes to the strict parser without the expressions' try: a Codex-shaped
 * created frame (about 12.5 KB of echoed instructions, then ten tools) is scanned by indexOf
 * instead of by the layout's expression, which reads the whole instructions string before it fails
 * at the tools.
 */
const NO_TOOLS = '"tools":[]';
// (the terminal events are left to their expressions: one that echoes created's tools is read with
// `[]` in their place, echoed-request.ts)
const WITHOUT_TOOLS: ReadonlySet<string> = new Set(['response.created', 'response.in_progress']);

/** false when `data` of event `type` cannot be in any of its layouts for lack of NO_TOOLS (exported for the tests) */
export function mayHaveLayout(type: string, data: string): boolean {
  return !WITHOUT_TOOLS.has(type) || data.includes(NO_TOOLS);
}

/** The event's object (and spans) when its data is in a recognised layout, else null (the strict parser's turn). */
export function recogniseEvent(type: string | undefined, data: string): Recognised | null {
  const layouts = type === undefined ? undefined : LAYOUTS.get(type);
  return layouts === undefined || !mayHaveLayout(type!, data) ? null : recognise(layouts, data);
}
