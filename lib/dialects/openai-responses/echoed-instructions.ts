// OpenAI echoes the request's `instructions` in every Response event: `response.created`,
// `response.in_progress` (repeated-response.ts) and the terminal `response.completed` /
// `response.incomplete`. An agent's instructions are 10 KB and more (Codex: about 12.5 KB), and
// matching a layout's string hole over them and decoding their escapes costs more than the rest of
// the frame. So the text of created's instructions (its JSON string, quotes included) is kept, and
// a terminal frame that has that very text in its instructions' place is recognised with `null`
// there instead, its instructions then being created's value: the text is compared, not matched.
//
// Why that is exactly as strict as matching the whole frame:
// - created's text was read by its layout (frame-layouts.ts), so it is a JSON string that decodes
//   to created's instructions value;
// - in a frame that a Response layout recognises, the first `"instructions":` is the Response's
//   instructions key: every quote before it is a string's delimiter or the layout's own text, and a
//   string's body holds no raw quote (the same holds for created's text, and for where its string
//   ends: the first `","max_output_tokens":` after it);
// - so when the terminal frame with `null` in place of that text (same text before it) is
//   recognised, the `null` is its instructions value, and the frame as it came is that frame with
//   one JSON value's text replaced by another valid one: valid, with the same members, the
//   instructions being created's.
// The gateway's own echo may reuse that text too (client-encode-writer.ts), when it is what
// JSON.stringify writes for the value.
import type { JsonObject } from '../../chunks.js';
import type { Recognised } from '../../json/layout.js';
import { recogniseEvent } from './frame-layouts.js';

const KEY = '"instructions":';
const NEXT = '","max_output_tokens":';

/** One stream's echoed instructions, as created wrote them. */
export class EchoedInstructions {
  /** created's instructions as JSON text; undefined when it had none, or was not read by its layout */
  private text: string | undefined = undefined;
  private value: string | undefined = undefined;
  /** where that text lies in created's data */
  span: [number, number] | undefined = undefined;

  /** A `response.created` frame that its layout recognised (`parsed`). */
  created(data: string, parsed: JsonObject): void {
    const response = parsed.response as JsonObject;
    const value = response.instructions;
    if (typeof value !== 'string') return;
    const from = data.indexOf(KEY) + KEY.length;
    // the string's closing quote: the last `","max_output_tokens":`, as the first after it (see above)
    const to = data.lastIndexOf(NEXT) + 1;
    if (from < KEY.length || to <= from) return;
    this.text = data.slice(from, to);
    this.value = value;
    this.span = [from, to];
  }

  /**
   * A terminal Response frame (`response.completed` / `response.incomplete`) recognised by its
   * layout with created's instructions text in its instructions' place; null when it has not that
   * text there or is not recognised that way (the caller then takes the usual path).
   */
  terminal(type: string, data: string): Recognised | null {
    const text = this.text;
    if (text === undefined) return null;
    const from = data.indexOf(KEY) + KEY.length;
    if (from < KEY.length || data.slice(from, from + text.length) !== text) return null;
    const r = recogniseEvent(type, `${data.slice(0, from)}null${data.slice(from + text.length)}`);
    if (r === null) return null;
    (r.parsed.response as JsonObject).instructions = this.value!;
    return r;
  }
}
