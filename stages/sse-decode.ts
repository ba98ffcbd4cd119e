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
import type { Upstream } from '../lib/notes.js';
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

export function sseDecode(opts: SseDecodeOptions = {}): Stage<Buffer, UpstreamMessage> {
  const maxEventSize = opts.maxEventSize ?? 16 * MiB;
  const maxJsonBytes = opts.maxJsonBytes ?? 16 * MiB;
  const utf8 = new Utf8Stream();
  let mode: 'sse' | 'json' | undefined;
  /** JSON body parts, or bytes held back while 'auto' has seen only whitespace */
  let held: Buffer[] = [];
  let heldBytes = 0;
  let out: UpstreamMessage[] | undefined;
  let overflow = false;
  let parser: EventSourceParser | undefined;
  /** the deployment that answered (dispatch's `upstream` note) */
  let upstream: Upstream | null = null;
  /** what the answer check decoded of it (the same note), until taken */
  let checked: CheckedAnswer | undefined;
  /** the text fed so far ended with a CR: the parser waits to see whether an LF follows */
  let endsInCr = false;
  /** bytes at the start of the stream the answer check decoded already: skipped */
  let skip = 0;

  function newParser(): EventSourceParser {
    return createParser({
      maxBufferSize: maxEventSize,
      onEvent(m) {
        if (m.data.length > maxEventSize) overflow = true;
        else {
          // a chunk's first message in a literal of one, not pushed to an empty array (which grows
          // to 17 slots): a chunk of a streamed answer often holds one frame
          const msg: UpstreamMessage = { kind: 'sse', event: m.event, data: m.data };
          if (out === undefined) out = [msg];
          else out.push(msg);
        }
      },
      onError(err) {
        // unknown fields and bad `retry:` values are ignored, as the SSE spec says
        if (err.type === 'max-buffer-size-exceeded') overflow = true;
      },
    });
  }

  function decodeText(chunk: Uint8Array | undefined): string {
    try {
      return chunk === undefined ? utf8.end() : utf8.decode(chunk);
    } catch (err) {
      throw integrityError('the event stream is not valid UTF-8', err);
    }
  }

  function feedSse(chunk: Uint8Array | undefined): UpstreamMessage[] | undefined {
    let text = decodeText(chunk);
    // At the end, a final CR ends its line (no LF can follow): an LF tells the parser so, adding no
    // line. Without it an event stream with CR line ends would lose its last event.
    if (chunk === undefined && endsInCr) text += '\n';
    if (text !== '') {
      (parser ??= newParser()).feed(text);
      endsInCr = text.charCodeAt(text.length - 1) === 0x0d;
    }
    if (overflow) throw integrityError(`an event exceeds the maximum size of ${maxEventSize} characters`);
    const ready = out;
    out = undefined;
    return ready;
  }

  /**
   * A stream's default mode was just decided: the start the answer check decoded is skipped, unless
   * it is longer than an event may be (its frames must meet this stage's bound: read them again).
   */
  function skipCheckedStart(): boolean {
    const start = checked;
    checked = undefined;
    if (start === undefined || start.kind !== 'start' || start.bytes > maxEventSize) return false;
    skip = start.bytes;
    utf8.readBefore();
    return true;
  }

  /**
   * `chunk` while the start is skipped: nothing until the chunk it ends in (dispatch hands on the
   * chunks the check held as they came, not joined: a chunk that outputs nothing costs no write),
   * then CHECKED_START in its place and what follows it in that chunk.
   */
  function skipping(chunk: Buffer): UpstreamMessage[] | undefined {
    if (chunk.length < skip) {
      skip -= chunk.length;
      return undefined;
    }
    const ready = chunk.length === skip ? undefined : feedSse(chunk.subarray(skip));
    skip = 0;
    if (ready === undefined) return [CHECKED_START];
    ready.unshift(CHECKED_START);
    return ready;
  }

  function hold(chunk: Buffer): void {
    heldBytes += chunk.length;
    if (heldBytes > maxJsonBytes) throw integrityError(`the response body exceeds ${maxJsonBytes} bytes`);
    held.push(chunk);
  }

  /** SSE was just decided: feed the whitespace held back so far, then `last` (undefined = end of input). */
  function feedHeld(last: Buffer | undefined): UpstreamMessage[] | undefined {
    let ready: UpstreamMessage[] | undefined;
    for (const part of held) {
      const got = feedSse(part);
      if (got) ready = ready ? ready.concat(got) : got;
    }
    held = [];
    heldBytes = 0;
    const got = feedSse(last);
    return ready && got ? ready.concat(got) : (ready ?? got);
  }

  function decide(ctx: RequestContext, first: number): 'sse' | 'json' | undefined {
    const wanted = (opts.mode ?? defaultMode)(ctx, upstream);
    if (wanted !== 'auto') return wanted;
    if (first === -1) return undefined;
    return first === 0x7b || first === 0x5b ? 'json' : 'sse';
  }

  return {
    name: 'sse-decode',
    // messages it makes of the bytes (CHECKED_START among them), never a note
    outputsNoNotes: true,
    note(n) {
      if (n.note === 'upstream') {
        upstream = n.upstream;
        checked = n.checked;
      }
    },
    step(chunk, ctx) {
      if (mode === 'sse') return skip === 0 ? feedSse(chunk) : skipping(chunk);
      if (mode === 'json') {
        hold(chunk);
        return undefined;
      }
      mode = decide(ctx, firstSignificant(chunk));
      if (mode === 'sse' && opts.mode === undefined && held.length === 0 && skipCheckedStart()) return skipping(chunk);
      if (mode === 'sse') return feedHeld(chunk);
      hold(chunk);
      return undefined;
    },
    flush(ctx) {
      mode ??= decide(ctx, -1) ?? 'sse';
      if (mode === 'sse') return feedHeld(undefined);
      const json = checked;
      checked = undefined;
      if (json !== undefined && json.kind === 'json' && held.length === 1 && held[0] === json.bytes) {
        held = [];
        return [{ kind: 'json', body: json.body }];
      }
      const bytes = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
      held = [];
      let body: string;
      try {
        body = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch (err) {
        throw integrityError('the response body is not valid UTF-8', err);
      }
      return [{ kind: 'json', body }];
    },
  };
}
