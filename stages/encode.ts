// encode: CanonicalEvent → response text in the client's dialect. Picks the SSE encoder or the
// non-streaming JSON encoder from the request's `stream` field (never from `Accept`), learned from
// the `routed` note, and outputs the response head (a `head` note: status, content headers,
// whole-document or streaming, the keep-alive frame) before the first byte. The encoders read the
// notes this stage hears (lib/encoder-input.ts).
import type { CanonicalEvent } from '../lib/chunks.js';
import { jsonEncoders } from '../lib/dialects/index.js';
import type { EncoderState } from '../lib/encoder-input.js';
import { errors } from '../lib/errors/index.js';
import type { HeadNote } from '../lib/notes.js';
import { SSE_HEADERS } from '../lib/request-io.js';
import type { Stage, StageFactory, StageOutput } from '../lib/stage.js';
import { encoderState, sseEncode, type SseEncodeStage } from './sse-encode.js';

export { SSE_HEADERS };

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** The head first, then what the encoder gave (one array, once per request). */
function withHead(head: HeadNote, out: StageOutput<string>): (string | HeadNote)[] {
  const all: (string | HeadNote)[] = [head];
  if (out != null) for (const piece of out as Iterable<string>) all.push(piece);
  return all;
}

export function encodeResponse(): StageFactory<CanonicalEvent, string | HeadNote> {
  return (ctx): Stage<CanonicalEvent, string | HeadNote> => {
    const input: EncoderState = encoderState(ctx);
    let inner: Stage<CanonicalEvent, string> | undefined;
    let sse: SseEncodeStage | undefined;
    /** the head, until it went out with the first output */
    let head: HeadNote | null = null;
    const pick = (): Stage<CanonicalEvent, string> => {
      if (inner) return inner;
      if (input.routed?.request.stream) {
        inner = sse = sseEncode({}, input);
      } else {
        const factory = jsonEncoders[ctx.dialect];
        if (!factory) throw errors.noJsonEncoder(ctx.dialect);
        inner = factory(input);
      }
      return inner;
    };
    /** the head the first output goes with: the keep-alive frame is known once the encoder ran */
    const takeHead = (): HeadNote | null => {
      if (head === null && inner !== undefined) {
        head = sse !== undefined
          ? { note: 'head', status: 200, headers: SSE_HEADERS, whole: false, keepalive: sse.keepalive }
          : { note: 'head', status: 200, headers: JSON_HEADERS, whole: true, keepalive: null };
        return head;
      }
      return null;
    };
    return {
      name: 'encode',
      note: (n) => input.note(n),
      step(ev, c) {
        const out = pick().step(ev, c);
        const first = takeHead();
        return first === null ? out : withHead(first, out);
      },
      flush(c) {
        const out = pick().flush?.(c);
        const first = takeHead();
        return first === null ? out : withHead(first, out);
      },
      fail: (err, c) => pick().fail?.(err, c) ?? [],
    };
  };
}
