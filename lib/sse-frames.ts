// The event stream's common form, read without the general parser: frames written as the providers
// write them, `[event: <name>\n]data: <data>\n\n`, whole in one piece of text. What this reads is
// exactly what eventsource-parser gives for the same text (stages/sse-decode.ts hands it everything
// else, from the first frame not in that form on): a frame of one `data:` line (the space after the
// colon is the one the parser drops), an optional `event:` line before it with a name that is not
// empty, and the blank line that ends it, with no CR anywhere in the text (a CR ends a line too, and
// CRLF pairs are the parser's job). Most frames of a stream name one of a few events: those names
// are the constants below, not a slice per frame, so the decoders' comparisons and map look-ups with
// them find the same string at once.

/** The events a Messages stream is made of (any other name is sliced from the text). */
const NAMES = ['content_block_delta', 'content_block_start', 'content_block_stop', 'message_start', 'message_delta', 'message_stop', 'ping'];

const EVENT = 'event: ';
const DATA = 'data: ';
const LF = 0x0a;

import type { UpstreamMessage } from './chunks.js';

/** The event name starting at `at` (its line runs to `nl`), as one of NAMES when it is one. */
function eventName(text: string, at: number, nl: number): string {
  const length = nl - at;
  for (let i = 0; i < NAMES.length; i++) {
    const name = NAMES[i]!;
    if (name.length === length && text.startsWith(name, at)) return name;
  }
  return text.slice(at, nl);
}

/**
 * Reads the frames in the common form from the start of `text` (which must begin at a frame's start,
 * the parser holding nothing) onto `out`, and returns where the first one not in it begins (the
 * text's length when all were); a text with a CR is not read at all (0). -1: a frame's data is
 * longer than `maxData` (the stream fails, as it does when the parser gives such a frame).
 */
export function scanFrames(text: string, out: UpstreamMessage[], maxData: number): number {
  if (text.indexOf('\r') >= 0) return 0;
  let at = 0;
  const end = text.length;
  while (at < end) {
    let event: string | undefined;
    let line = at;
    if (text.startsWith(EVENT, at)) {
      const nl = text.indexOf('\n', at + EVENT.length);
      if (nl < 0 || nl === at + EVENT.length) return at;
      event = eventName(text, at + EVENT.length, nl);
      line = nl + 1;
    }
    if (!text.startsWith(DATA, line)) return at;
    const nl = text.indexOf('\n', line + DATA.length);
    if (nl < 0 || text.charCodeAt(nl + 1) !== LF) return at;
    if (nl - line - DATA.length > maxData) return -1;
    out.push({ kind: 'sse', event, data: text.slice(line + DATA.length, nl) });
    at = nl + 2;
  }
  return at;
}
