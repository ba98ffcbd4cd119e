// The frame that makes up nearly all of a Messages stream, recognised by its exact layout and
// decoded without the general strict parser (which builds objects key by key and costs about a
// tenth of the gateway's CPU on a streamed answer):
//
//   {"type":"content_block_delta","index":<digits>,"delta":{"type":"text_delta","text":<string>}}
//
// Exactly that text, no whitespace, nothing else: such a frame has no duplicate key and no number
// out of range, so the object built here is the one the strict parser would build (same keys, same
// order, same values). Anything else, a near miss included, returns null and takes the general path.
import type { JsonObject, NativeFrame } from '../../chunks.js';

/**
 * The whole frame, as the JSON grammar allows it: the index without a leading zero (and exact: at
 * most 9 digits), the text made of characters other than a quote, a backslash or a control
 * character, or of valid escapes. One compiled regular expression checks it faster than a scan in JS.
 * The text is written as an unrolled loop (runs of plain characters between escapes, as
 * ../../json/layout.ts writes a string), which V8 matches several times faster than an alternation
 * tried at every character; it admits exactly the same strings.
 */
const FRAME = /^\{"type":"content_block_delta","index":(0|[1-9]\d{0,8}),"delta":\{"type":"text_delta","text":"([^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*)"\}\}$/;

/** longer frames take the general path (keeps the expression's backtracking stack small) */
const MAX_FRAME = 64 * 1024;

export interface TextDeltaFrame {
  type: 'content_block_delta';
  index: number;
  delta: { type: 'text_delta'; text: string };
}

/** where the index starts, and what lies between its last digit and the text (fixed by FRAME) */
const INDEX_AT = '{"type":"content_block_delta","index":'.length;
const TEXT_AFTER_INDEX = ',"delta":{"type":"text_delta","text":"'.length;
/** the frame's end after the text: `"}}` */
const TAIL = 3;

/**
 * A recognised text delta frame: what it says, and the native frame of its event (lib/chunks.ts) in
 * one object. The object the strict parser builds (`parsed`) is built the first time it is read: a
 * Messages client gets the frame's bytes and other clients the event's text, so most are never asked
 * for it. Nothing reads it from a copy: a spread copy (replay's re-encoding) has no `parsed`, and is
 * re-encoded from its event.
 */
export class TextDeltaChunk implements NativeFrame {
  readonly dialect = 'anthropic' as const;
  readonly event = 'content_block_delta';
  private built: TextDeltaFrame | undefined = undefined;

  constructor(
    readonly data: string,
    readonly index: number,
    readonly text: string,
  ) {}

  get parsed(): JsonObject {
    return (this.built ??= { type: 'content_block_delta', index: this.index, delta: { type: 'text_delta', text: this.text } }) as unknown as JsonObject;
  }
}

/**
 * The frame's index and text, read at their known places once FRAME matched (`test`, not `exec`:
 * no match array and capture strings per frame, for the frame most of a stream is made of).
 */
export function readTextDelta(data: string): TextDeltaChunk | null {
  if (data.length > MAX_FRAME || !FRAME.test(data)) return null;
  let index = 0;
  let at = INDEX_AT;
  // at most 9 digits (FRAME): exact in a double
  for (let c = data.charCodeAt(at); c !== 0x2c; c = data.charCodeAt(++at)) index = index * 10 + (c - 0x30);
  const raw = data.slice(at + TEXT_AFTER_INDEX, data.length - TAIL);
  // escapes are decoded by JSON.parse, as the strict parser decodes them
  return new TextDeltaChunk(data, index, raw.indexOf('\\') < 0 ? raw : (JSON.parse(`"${raw}"`) as string));
}

/** The frame's object, as the strict parser builds it, or null. */
export function parseTextDeltaFrame(data: string): TextDeltaFrame | null {
  return (readTextDelta(data)?.parsed ?? null) as TextDeltaFrame | null;
}
