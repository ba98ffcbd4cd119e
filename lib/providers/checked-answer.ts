// What the answer check (answer-check.ts) decoded of a 2xx answer while it held it back, handed on
// as a typed member of the `upstream` note (lib/notes.ts: `checked`), so that sse-decode and
// provider-decode, which both see that note, do not decode it again. The check makes it once; the
// stages only read it, each at most once per answer (a note per answer, a stage instance per chain):
//
// - a stream's start (`CheckedStart`): sse-decode skips its bytes (dispatch hands on the chunks the
//   check held as they came, not joined) and outputs CHECKED_START in their place, in the step of the
//   chunk they end in; provider-decode, given that message, outputs the start's events and reads on
//   with the start's decoder. Without the message (sse-decode read the bytes itself) provider-decode
//   decodes them with a fresh decoder, as if nothing were checked.
// - a JSON answer (`CheckedJson`): when the body sse-decode collected is the very Buffer the check
//   decoded (the failover loop hands the held answer on in one piece), its text is the check's; when
//   provider-decode is given that text, its events are the check's.
import type { CanonicalEvent, UpstreamMessage } from '../chunks.js';
import type { UpstreamDecoder } from '../dialects/index.js';

/**
 * The start of a stream the check decoded: its first `bytes` bytes (whole frames: they end after a
 * blank line, LF LF, where the event-stream parser holds nothing and no character is cut), the events
 * the upstream decoder made of them (the preamble and the first content frame), and that decoder,
 * whose state goes on from there.
 */
export interface CheckedStart {
  readonly kind: 'start';
  readonly bytes: number;
  readonly events: CanonicalEvent[];
  readonly decoder: UpstreamDecoder;
}

/** A JSON answer the check decoded: the held bytes (in one piece, as handed on), their text and events. */
export interface CheckedJson {
  readonly kind: 'json';
  readonly bytes: Buffer;
  readonly body: string;
  readonly events: CanonicalEvent[];
}

export type CheckedAnswer = CheckedStart | CheckedJson;

/**
 * The message sse-decode outputs in place of the frames of a `CheckedStart` it skipped (first, in the
 * step of the chunk they end in, so their events go on when they did before): provider-decode
 * outputs the start's events for it. Recognised by identity; its shape is only that of an event of
 * no data.
 */
export const CHECKED_START: UpstreamMessage = Object.freeze({ kind: 'sse', event: undefined, data: '' });
