// The frequent Messages frames recognised by their exact layout (lib/json/layout.ts), keyed by event
// name: parsed without the general parser, exactly as strictly (a frame in any other layout, a near
// miss included, takes the strict parser). The text delta keeps its own hand-written recogniser
// (text-delta.ts), tried first. Anthropic pads its signature_delta frames with spaces before the last
// `}` (`..."signature":"…"}   }`): that layout admits JSON whitespace there, and only there. Layouts:
// Anthropic's own (key order as the API writes it, with and without `stop_details`) and that of the
// servers that copy the SDK's order (id before model).
import type { JsonObject } from '../../chunks.js';
import { COUNTS, compileLayout, INT, optional, recognise, spanned, STRING, STRING_OR_NULL, type Layout, type Members, type Recognised } from '../../json/layout.js';
import { parseTextDeltaFrame } from './text-delta.js';

/** the usage object as the simplest servers write it (the bench's), before any other of plain counts */
const PLAIN_USAGE: Members = { input_tokens: INT, cache_creation_input_tokens: INT, cache_read_input_tokens: INT, output_tokens: INT };

const start = (message: Members): Layout => compileLayout({ type: 'message_start', message });
const ENVELOPE: Members = { type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null, stop_details: optional(null), usage: COUNTS };
const block = (content_block: Members): Layout => compileLayout({ type: 'content_block_start', index: INT, content_block });
const delta = (d: Members, padEnd = false): Layout => compileLayout({ type: 'content_block_delta', index: INT, delta: d }, { padEnd });

const LAYOUTS = new Map<string, readonly Layout[]>([
  [
    'message_start',
    [
      start({ model: spanned('model'), id: STRING, ...ENVELOPE }),
      start({ id: STRING, type: 'message', role: 'assistant', model: spanned('model'), content: [], stop_reason: null, stop_sequence: null, usage: PLAIN_USAGE }),
      start({ id: STRING, type: 'message', role: 'assistant', model: spanned('model'), content: [], stop_reason: null, stop_sequence: null, usage: COUNTS }),
    ],
  ],
  [
    'content_block_start',
    [
      block({ type: 'text', text: STRING }),
      block({ citations: [], type: 'text', text: STRING }),
      block({ type: 'tool_use', id: STRING, name: STRING, input: {} }),
      block({ type: 'thinking', thinking: STRING, signature: STRING }),
    ],
  ],
  [
    'content_block_delta',
    [
      delta({ type: 'input_json_delta', partial_json: STRING }),
      delta({ type: 'thinking_delta', thinking: STRING }),
      delta({ type: 'signature_delta', signature: STRING }, true),
    ],
  ],
  ['content_block_stop', [compileLayout({ type: 'content_block_stop', index: INT })]],
  [
    'message_delta',
    [
      compileLayout({ type: 'message_delta', delta: { stop_reason: STRING_OR_NULL, stop_sequence: STRING_OR_NULL, stop_details: optional(null) }, usage: PLAIN_USAGE }),
      compileLayout({ type: 'message_delta', delta: { stop_reason: STRING_OR_NULL, stop_sequence: STRING_OR_NULL, stop_details: optional(null) }, usage: COUNTS }),
    ],
  ],
  ['message_stop', [compileLayout({ type: 'message_stop' })]],
  ['ping', [compileLayout({ type: 'ping' })]],
]);

/** The frame's object when `event`'s data is in a recognised layout, else null (the strict parser's turn). */
export function recogniseFrame(event: string, data: string): JsonObject | null {
  if (event === 'content_block_delta') {
    const text = parseTextDeltaFrame(data) as JsonObject | null;
    if (text !== null) return text;
  }
  return recogniseLayout(event, data)?.parsed ?? null;
}

/**
 * recogniseFrame but for the text delta (for a caller that tried parseTextDeltaFrame itself), with
 * the spans: message_start's `model` (quotes included), where the encoder splices the client's model.
 */
export function recogniseLayout(event: string, data: string): Recognised | null {
  const layouts = LAYOUTS.get(event);
  return layouts === undefined ? null : recognise(layouts, data);
}
