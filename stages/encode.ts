// encode: CanonicalEvent → response text in the client's dialect. Picks the SSE encoder or the
// non-streaming JSON encoder from the request's `stream` field (never from `Accept`), learned from
// the `routed` note, and outputs the response head (a `head` note: status, content headers,
// whole-document or streaming, the keep-alive frame) before the first byte. The encoders read the
// notes this stage hears (lib/encoder-input.ts).
import type { CanonicalEvent } from '../lib/chunks.js';
import { jsonEncoders } from '../lib/dialects/index.js';
import type { EncoderState } from '../lib/encoder-input.js';
import { errors } from '../lib/errors/index.js';
import type { ChainNote, HeadNote } from '../lib/notes.js';
import type { RequestContext } from '../lib/context.js';
import type { GatewayError } from '../lib/errors.js';
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

/**
 * One request's encode stage: a class instance, not an object literal with a closure per hook (and
 * two helpers) made per request; its `step` runs for every event of a stream.
 */
class EncodeStage implements Stage<CanonicalEvent, string | HeadNote> {
  readonly name = 'encode';
  private readonly input: EncoderState;
  private inner: Stage<CanonicalEvent, string> | undefined = undefined;
  private sse: SseEncodeStage | undefined = undefined;
  /** the head, until it went out with the first output */
  private head: HeadNote | null = null;

  constructor(private readonly ctx: RequestContext) {
    this.input = encoderState(ctx);
  }

  private pick(): Stage<CanonicalEvent, string> {
    if (this.inner) return this.inner;
    if (this.input.routed?.request.stream) {
      this.inner = this.sse = sseEncode({}, this.input);
    } else {
      const factory = jsonEncoders[this.ctx.dialect];
      if (!factory) throw errors.noJsonEncoder(this.ctx.dialect);
      this.inner = factory(this.input);
    }
    return this.inner;
  }

  /** the head the first output goes with: the keep-alive frame is known once the encoder ran */
  private takeHead(): HeadNote | null {
    if (this.head === null && this.inner !== undefined) {
      const sse = this.sse;
      this.head = sse !== undefined
        ? { note: 'head', status: 200, headers: SSE_HEADERS, whole: false, keepalive: sse.keepalive }
        : { note: 'head', status: 200, headers: JSON_HEADERS, whole: true, keepalive: null };
      return this.head;
    }
    return null;
  }

  note(n: ChainNote): void {
    this.input.note(n);
  }

  step(ev: CanonicalEvent, c: RequestContext): StageOutput<string | HeadNote> {
    const out = this.pick().step(ev, c);
    const first = this.takeHead();
    return first === null ? out : withHead(first, out);
  }

  /** once the head went out with the first output: the streaming encoder's `steps` (else `step`, one event at a time) */
  steps(evs: readonly CanonicalEvent[], from: number, to: number, out: unknown[], c: RequestContext): number {
    const sse = this.sse;
    return this.head === null || sse === undefined ? from : sse.steps(evs, from, to, out, c);
  }

  flush(c: RequestContext): StageOutput<string | HeadNote> {
    const out = this.pick().flush?.(c);
    const first = this.takeHead();
    return first === null ? out : withHead(first, out);
  }

  fail(err: GatewayError, c: RequestContext): Iterable<string | HeadNote> {
    return this.pick().fail?.(err, c) ?? [];
  }
}

export function encodeResponse(): StageFactory<CanonicalEvent, string | HeadNote> {
  return (ctx): Stage<CanonicalEvent, string | HeadNote> => new EncodeStage(ctx);
}
