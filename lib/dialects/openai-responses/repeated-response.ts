// OpenAI's `response.in_progress` repeats the `response.created` just before it: the same Response
// object (status in_progress, no output, no usage, every request parameter echoed, `instructions`
// included: about 0.6 KB for the bench's request, 10 KB and more for an agent's system prompt); only
// the type and the sequence number differ. Once a `response.created` frame in the common layout
// (`{"type":…,"sequence_number":<digits>,"response":{…}}`, recognised or strictly parsed) was read,
// an `in_progress` frame whose text after its sequence number is the very text after created's is
// that object again: its text is compared, not matched against a layout, and no object is built.
// Exactly as strict as parsing it: both frames begin with their type and a sequence number (digits
// in the form the layouts accept) and go on with the same text, which parsed, after created's, into
// the one member `response`; after in_progress's, it parses into that same member. Anything else
// takes the usual path.
import type { JsonObject, JsonValue } from '../../chunks.js';

const CREATED = '{"type":"response.created","sequence_number":';
const IN_PROGRESS = '{"type":"response.in_progress","sequence_number":';

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * where the sequence number that begins at `from` ends: 0, or 1 to 15 digits without a leading zero
 * (exact in a double) and no digit after them; else -1
 */
export function numberEnd(data: string, from: number): number {
  const first = data.charCodeAt(from);
  let i = from + 1;
  if (first !== 0x30) {
    if (!isDigit(first)) return -1;
    const last = Math.min(from + 15, data.length);
    while (i < last && isDigit(data.charCodeAt(i))) i++;
  }
  return isDigit(data.charCodeAt(i)) ? -1 : i;
}

/** One stream's `response.created`, as its `response.in_progress` may repeat it. */
export class RepeatedResponse {
  /** created's text after its sequence number */
  private rest: string | undefined = undefined;
  private response: JsonValue | undefined = undefined;

  /** A `response.created` frame, parsed. */
  created(data: string, parsed: JsonObject): void {
    const end = data.startsWith(CREATED) ? numberEnd(data, CREATED.length) : -1;
    if (end < 0 || Object.keys(parsed).length !== 3 || parsed.response === undefined) return;
    this.rest = data.slice(end);
    this.response = parsed.response;
  }

  /** The object of a `response.in_progress` frame that repeats created's text, or null. */
  inProgress(data: string): JsonObject | null {
    const rest = this.rest;
    // (a slice compared is several times faster than startsWith on the sliced strings a stream's frames are)
    if (rest === undefined || data.slice(0, IN_PROGRESS.length) !== IN_PROGRESS) return null;
    const end = numberEnd(data, IN_PROGRESS.length);
    if (end < 0 || data.length - end !== rest.length || data.slice(end) !== rest) return null;
    let seq = 0;
    for (let i = IN_PROGRESS.length; i < end; i++) seq = seq * 10 + data.charCodeAt(i) - 0x30;
    // the one object for both frames: no handler changes a frame's object
    return { type: 'response.in_progress', sequence_number: seq, response: this.response! };
  }
}
