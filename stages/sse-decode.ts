// Upstream bytes → UpstreamMessage. An SSE body becomes one message per event (eventsource-parser,
// bounded buffer; the bytes read as strict streaming UTF-8 by lib/utf8-stream.ts, a chunk at a
// time); a JSON body is collected and emitted once at the end as `{kind: 'json', body}`.
//
// SSE or JSON? Decided once, on the first chunk (or at the end for an empty body), by the `mode`
// option. Its default reads the `upstream` note dispatch outputs (`stream`, from the upstream's
// content-type: 'sse' or 'json'); without one (offline replay) it is 'auto': the first byte
// that is not whitespace or a UTF-8 BOM decides — `{` or `[` is a JSON body, anything else
// (`event:`, `data:`, a `:` comment) an event stream.
//
// What dispatch's answer check decoded already, handed on as the `upstream` note's `checked`
// (lib/providers/checked-answer.ts), is not decoded again: the whole frames at the start of a stream
// it read up to the first content frame are skipped (CHECKED_START goes in their place, in the step
// of the chunk they end in: the chunks before it output nothing; provider-decode outputs their events
// from the same note), and a JSON body that is the very Buffer the check decoded is the text it decoded.
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { UpstreamMessage } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import type { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import type { ChainNote, Upstream } from '../lib/notes.js';
import { CHECKED_START, type CheckedAnswer } from '../lib/providers/checked-answer.js';
import type { Stage } from '../lib/stage.js';
import { Utf8Stream } from '../lib/utf8-stream.js';

export type BodyMode = 'sse' | 'json' | 'auto';

export interface SseDecodeOptions {
  /** default: `defaultMode` */
  mode?: (ctx: RequestContext, upstream: Upstream | null) => BodyMode;
  /** largest SSE event (or partial line) held in memory, in characters; default 16 MiB */
  maxEventSize?: number;
  /** largest JSON body, in bytes; default 16 MiB */
  maxJsonBytes?: number;
}

const MiB = 1024 * 1024;

/** GW_ERR_INTEGRITY: the upstream body cannot be read (inference had begun) */
const integrityError = (detail: string, cause?: unknown): GatewayError => errors.integrity(detail, cause);

/** SSE or JSON as the upstream that answered said (its `upstream` note); 'auto' without one. */
export function defaultMode(_ctx: RequestContext, upstream: Upstream | null): BodyMode {
  if (upstream === null) return 'auto';
  return upstream.stream ? 'sse' : 'json';
}

/** First byte that is not JSON/SSE whitespace or part of a leading BOM; -1 when none. */
function firstSignificant(chunk: Uint8Array): number {
  for (let i = 0; i < chunk.length; i++) {
    const b = chunk[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0xef && b !== 0xbb && b !== 0xbf) return b;
  }
  return -1;
}

/**
 * The stage of one answer: a class, so that its methods are made once, not as closures per request
 * (each first called through V8's lazy-compile stub, and each an allocation); only the parser's two
 * callbacks are closures, made with the parser on the first text.
 */
class SseDecode implements Stage<Buffer, UpstreamMessage> {
  readonly name = 'sse-decode';
  // messages it makes of the bytes (CHECKED_START among them), never a note
  readonly outputsNoNotes = true as const;
  private readonly maxEventSize: number;
  private readonly maxJsonBytes: number;
  private readonly utf8 = new Utf8Stream();
  private mode: 'sse' | 'json' | undefined = undefined;
  /** JSON body parts, or bytes held back while 'auto' has seen only whitespace */
  private held: Buffer[] = [];
  private heldBytes = 0;
  private out: UpstreamMessage[] | undefined = undefined;
  private overflow = false;
  private parser: EventSourceParser | undefined = undefined;
  /** the deployment that answered (dispatch's `upstream` note) */
  private upstream: Upstream | null = null;
  /** what the answer check decoded of it (the same note), until taken */
  private checked: CheckedAnswer | undefined = undefined;
  /** the text fed so far ended with a CR: the parser waits to see whether an LF follows */
  private endsInCr = false;
  /** bytes at the start of the stream the answer check decoded already: skipped */
  private skip = 0;

  constructor(private readonly opts: SseDecodeOptions) {
    this.maxEventSize = opts.maxEventSize ?? 16 * MiB;
    this.maxJsonBytes = opts.maxJsonBytes ?? 16 * MiB;
  }

  private newParser(): EventSourceParser {
    const maxEventSize = this.maxEventSize;
    return createParser({
      maxBufferSize: maxEventSize,
      onEvent: (m) => {
        if (m.data.length > maxEventSize) this.overflow = true;
        else {
          // a chunk's first message in a literal of one, not pushed to an empty array (which grows
          // to 17 slots): a chunk of a streamed answer often holds one frame
          const msg: UpstreamMessage = { kind: 'sse', event: m.event, data: m.data };
          if (this.out === undefined) this.out = [msg];
          else this.out.push(msg);
        }
      },
      onError: (err) => {
        // unknown fields and bad `retry:` values are ignored, as the SSE spec says
        if (err.type === 'max-buffer-size-exceeded') this.overflow = true;
      },
    });
  }

  private decodeText(chunk: Uint8Array | undefined): string {
    try {
      return chunk === undefined ? this.utf8.end() : this.utf8.decode(chunk);
    } catch (err) {
      throw integrityError('the event stream is not valid UTF-8', err);
    }
  }

  private feedSse(chunk: Uint8Array | undefined): UpstreamMessage[] | undefined {
    let text = this.decodeText(chunk);
    // At the end, a final CR ends its line (no LF can follow): an LF tells the parser so, adding no
    // line. Without it an event stream with CR line ends would lose its last event.
    if (chunk === undefined && this.endsInCr) text += '\n';
    if (text !== '') {
      (this.parser ??= this.newParser()).feed(text);
      this.endsInCr = text.charCodeAt(text.length - 1) === 0x0d;
    }
    if (this.overflow) throw integrityError(`an event exceeds the maximum size of ${this.maxEventSize} characters`);
    const ready = this.out;
    this.out = undefined;
    return ready;
  }

  /**
   * A stream's default mode was just decided: the start the answer check decoded is skipped, unless
   * it is longer than an event may be (its frames must meet this stage's bound: read them again).
   */
  private skipCheckedStart(): boolean {
    const start = this.checked;
    this.checked = undefined;
    if (start === undefined || start.kind !== 'start' || start.bytes > this.maxEventSize) return false;
    this.skip = start.bytes;
    this.utf8.readBefore();
    return true;
  }

  /**
   * `chunk` while the start is skipped: nothing until the chunk it ends in (dispatch hands on the
   * chunks the check held as they came, not joined: a chunk that outputs nothing costs no write),
   * then CHECKED_START in its place and what follows it in that chunk.
   */
  private skipping(chunk: Buffer): UpstreamMessage[] | undefined {
    const skip = this.skip;
    if (chunk.length < skip) {
      this.skip = skip - chunk.length;
      return undefined;
    }
    const ready = chunk.length === skip ? undefined : this.feedSse(chunk.subarray(skip));
    this.skip = 0;
    if (ready === undefined) return [CHECKED_START];
    ready.unshift(CHECKED_START);
    return ready;
  }

  private hold(chunk: Buffer): void {
    this.heldBytes += chunk.length;
    if (this.heldBytes > this.maxJsonBytes) throw integrityError(`the response body exceeds ${this.maxJsonBytes} bytes`);
    this.held.push(chunk);
  }

  /** SSE was just decided: feed the whitespace held back so far, then `last` (undefined = end of input). */
  private feedHeld(last: Buffer | undefined): UpstreamMessage[] | undefined {
    let ready: UpstreamMessage[] | undefined;
    for (const part of this.held) {
      const got = this.feedSse(part);
      if (got) ready = ready ? ready.concat(got) : got;
    }
    this.held = [];
    this.heldBytes = 0;
    const got = this.feedSse(last);
    return ready && got ? ready.concat(got) : (ready ?? got);
  }

  private decide(ctx: RequestContext, first: number): 'sse' | 'json' | undefined {
    const wanted = (this.opts.mode ?? defaultMode)(ctx, this.upstream);
    if (wanted !== 'auto') return wanted;
    if (first === -1) return undefined;
    return first === 0x7b || first === 0x5b ? 'json' : 'sse';
  }

  note(n: ChainNote): void {
    if (n.note === 'upstream') {
      this.upstream = n.upstream;
      this.checked = n.checked;
    }
  }

  step(chunk: Buffer, ctx: RequestContext): UpstreamMessage[] | undefined {
    const mode = this.mode;
    if (mode === 'sse') return this.skip === 0 ? this.feedSse(chunk) : this.skipping(chunk);
    if (mode === 'json') {
      this.hold(chunk);
      return undefined;
    }
    const decided = (this.mode = this.decide(ctx, firstSignificant(chunk)));
    if (decided === 'sse' && this.opts.mode === undefined && this.held.length === 0 && this.skipCheckedStart()) return this.skipping(chunk);
    if (decided === 'sse') return this.feedHeld(chunk);
    this.hold(chunk);
    return undefined;
  }

  flush(ctx: RequestContext): UpstreamMessage[] | undefined {
    const mode = (this.mode ??= this.decide(ctx, -1) ?? 'sse');
    if (mode === 'sse') return this.feedHeld(undefined);
    const json = this.checked;
    this.checked = undefined;
    const held = this.held;
    if (json !== undefined && json.kind === 'json' && held.length === 1 && held[0] === json.bytes) {
      this.held = [];
      return [{ kind: 'json', body: json.body }];
    }
    const bytes = held.length === 1 ? held[0]! : Buffer.concat(held, this.heldBytes);
    this.held = [];
    let body: string;
    try {
      body = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (err) {
      throw integrityError('the response body is not valid UTF-8', err);
    }
    return [{ kind: 'json', body }];
  }
}

export function sseDecode(opts: SseDecodeOptions = {}): Stage<Buffer, UpstreamMessage> {
  return new SseDecode(opts);
}
