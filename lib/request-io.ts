// The two ends of a request's chain without stream objects: the request body as a pull-based async
// iterator over node:http's own 'data' events, and the response as direct `res.write` calls with
// drain waits and a keep-alive timer. One Readable, one Writable and the pipeline machinery per
// request (with its AbortController and DOMException on every finish) cost more CPU than the
// gateway's whole JSON validation did.
import type { ServerResponse } from 'node:http';
import type { RequestContext } from './context.js';
import type { ChainNote, Outcome } from './notes.js';
import { joinPieces } from './fused-level.js';

// the request body's end (chunk-reader.ts), where the chain and tests have always found it
export { ChunkReader } from './chunk-reader.js';

/** The content headers of every streaming (SSE) answer. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

/**
 * Writes a chain's output to the response, and alone writes its head: status and headers before the
 * first byte, from what the chain's notes said (`note`): the headers every answer carries, the
 * rate-limit and upstream-id headers, then the encoder's `head` note (status, content headers,
 * whole-document or streaming, keep-alive frame). Each piece goes out as one `res.write`; a
 * whole-document answer goes out at the end in one write with its `content-length`. `write` returns
 * a promise only when the socket asked the writer to wait (backpressure); it resolves on 'drain' or
 * when the response closes. While the provider is silent, one timer per streaming response writes
 * the dialect's keep-alive frame every `pingMs`.
 *
 * A streaming request also gets keep-alives before any provider answered (FAILURE-MODES F73: idle
 * proxies cut a silent connection at 30-100 s, and a long prompt or long thinking keeps a provider
 * silent that long). The head is held while a provider may still fail, so that a failure is still
 * an HTTP status and failover stays invisible (F62); only after `pingMs` of silence (15 s by default)
 * does the writer commit to 200 and the event stream, and later failures go in-band.
 */
export class ResponseSink {
  /** the response headers so far (the writer's own object: notes' headers are copied in) */
  readonly headers: Record<string, string | string[]> = {};
  private status = 200;
  private whole = false;
  private keepalive: string | null = null;
  /** true once status and headers went out: failures must then be reported in-band */
  sent = false;
  /** a deployment answered (its `upstream` note): provider inference may have begun */
  providerWork = false;
  private timer: NodeJS.Timeout | null = null;
  /** the keep-alive timer armed before any provider answered (streaming requests) */
  private early: NodeJS.Timeout | null = null;
  private lastWrite = 0;
  /** the pieces of a whole-document answer, sent by `end` */
  private held: (string | Buffer)[] | null = null;
  /** the socket is corked by `holdForStore` (until `release`'s tick or `end`) */
  private corked = false;
  /** `release` queued its uncork for the end of this tick (a new hold before then cancels it) */
  private releasing = false;

  constructor(
    private readonly ctx: RequestContext,
    private readonly res: ServerResponse,
    private readonly pingMs: number,
    /** the client dialect's keep-alive frame for a stream not yet answered; null: none */
    private readonly earlyKeepalive: string | null = null,
  ) {
    copyInto(this.headers, ctx.responseHeaders);
  }

  /** What a note tells the writer (the runner hands it every note that reaches the end of the chain). */
  readonly note = (n: ChainNote): void => {
    switch (n.note) {
      case 'headers':
        copyInto(this.headers, n.headers);
        break;
      case 'upstream':
        this.providerWork = n.upstream !== null;
        break;
      case 'routed':
        if (n.routed.request.stream && this.earlyKeepalive !== null && !this.sent && this.early === null) {
          this.early = setTimeout(timerOf, this.pingMs, this);
        }
        break;
      case 'head':
        this.status = n.status;
        this.whole = n.whole;
        this.keepalive = n.keepalive;
        copyInto(this.headers, n.headers);
        break;
      default:
        break;
    }
  };

  /** The request id the client sees: the `request-id` header (an upstream's, when it differs), else ours. */
  requestId(): string {
    const h = this.headers['request-id'];
    return typeof h === 'string' ? h : this.ctx.reqId;
  }

  /** What the client got, once the head went out. */
  outcome(): Outcome {
    return { status: this.status };
  }

  /** still silent after `pingMs`: commit to a streaming 200 and keep the connection alive (the timer's callback) */
  earlyPing(): void {
    this.early = null;
    const res = this.res;
    if (this.sent || this.whole || res.destroyed || res.writableEnded || this.earlyKeepalive === null) return;
    copyInto(this.headers, SSE_HEADERS);
    this.keepalive = this.earlyKeepalive;
    this.head();
    res.write(this.keepalive);
    this.lastWrite = Date.now();
    if (this.timer === null) this.timer = setTimeout(timerOf, this.pingMs, this);
  }

  /** either timer fired: the early one while it is armed (the two are never armed at once) */
  fired(): void {
    if (this.early !== null) this.earlyPing();
    else this.ping();
  }

  private head(): void {
    const early = this.early;
    if (early !== null) {
      this.early = null;
      // a streaming answer's first write: the early timer goes on as the keep-alive timer (one timer
      // a request, not one cleared and another made). It was armed before this write, so it fires
      // at most `pingMs` after it, and `ping` then waits out the rest of `pingMs` since the last
      // write, as it does after any write: a frame still goes only after `pingMs` of silence
      if (this.keepalive !== null && this.timer === null && !this.whole) this.timer = early;
      else clearTimeout(early);
    }
    if (this.sent) return;
    this.res.writeHead(this.status, this.headers);
    this.sent = true;
  }

  /** the keep-alive timer's callback: a frame when the provider was silent for `pingMs` */
  ping(): void {
    this.timer = null;
    const res = this.res;
    if (this.keepalive === null || res.destroyed || res.writableEnded) return;
    const idle = Date.now() - this.lastWrite;
    if (idle >= this.pingMs) {
      res.write(this.keepalive);
      this.lastWrite = Date.now();
    }
    this.timer = setTimeout(timerOf, idle >= this.pingMs ? this.pingMs : this.pingMs - idle, this);
  }

  /**
   * The chain waits for the store alone (settle's commit, lib/stage.ts `waitsOnlyForStore`): what was
   * written in this tick stays in the socket (node:http itself flushes a tick's writes at its end)
   * until the chain next waits for something else (`release`) or the answer ends (`end`: node:http
   * uncorks). The answer's last frames then leave with the provider's last chunk and the stream's
   * end, one commit later, in one write instead of two or three.
   */
  holdForStore(): void {
    if (this.corked) {
      this.releasing = false;
      return;
    }
    if (!this.sent || this.whole) return;
    this.res.cork();
    this.corked = true;
  }

  /**
   * The chain waits for something else (the provider): what is held goes out at the end of this
   * tick, as node:http's own writes do, so that an end already on its way (the provider's body
   * ended with its last chunk) still joins it.
   */
  release(): void {
    if (!this.corked || this.releasing) return;
    this.releasing = true;
    process.nextTick(releaseOf, this);
  }

  /** `release`'s tick: uncork, unless a new hold or the end came first */
  releaseNow(): void {
    if (!this.releasing) return;
    this.releasing = false;
    this.corked = false;
    if (!this.res.writableEnded) this.res.uncork();
  }

  /**
   * undefined when the piece went out (or was queued within the socket's buffer), else wait for the
   * promise. `alone` (no other answer is being worked in this process): a streaming answer's first
   * piece leaves now, not at the end of this tick, where node:http sends what a tick wrote; the rest
   * of the provider's chunks already in memory is then worked while it travels (at concurrency 1,
   * with the provider's whole answer in one chunk, its first token came 0.1 ms later). Under load
   * the pieces of a tick still go out together: the write saved is CPU other answers wait for.
   */
  write(chunk: string | Buffer, alone = false): Promise<void> | undefined {
    if (this.whole) {
      (this.held ??= []).push(chunk);
      return undefined;
    }
    const first = !this.sent;
    this.head();
    const res = this.res;
    const ok = res.write(chunk);
    // node:http corked the socket for this tick at the write: uncorked now, the head and the piece
    // leave in one write (its own uncork at the tick's end then finds nothing held)
    if (first && alone && !this.corked) res.socket?.uncork();
    if (this.keepalive !== null) {
      this.lastWrite = Date.now();
      if (this.timer === null) this.timer = setTimeout(timerOf, this.pingMs, this);
    }
    // held (`holdForStore`), the socket is not waited on ('drain' would never come while it is
    // corked): what is queued goes out at the release or the end, and nothing more is written before
    // them than the provider's chunk already in memory turned into
    if (ok || res.destroyed || this.corked) return undefined;
    return new Promise((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }

  end(): void {
    this.stopTimer();
    const held = this.held;
    if (held !== null) {
      this.held = null;
      const body = joinPieces(held);
      this.headers['content-length'] = String(Buffer.byteLength(body));
      this.head();
      this.res.end(body);
      return;
    }
    this.head();
    this.corked = false; // node:http uncorks the socket at the end
    this.releasing = false;
    this.res.end();
  }

  stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.early !== null) clearTimeout(this.early);
    this.early = null;
  }
}

// The timers' callbacks: one function for every writer, given the writer (no bound closure per request).
function timerOf(sink: ResponseSink): void {
  sink.fired();
}

function releaseOf(sink: ResponseSink): void {
  sink.releaseNow();
}

/** Copy headers into the writer's own object (a loop: no spread, no new object). */
function copyInto(into: Record<string, string | string[]>, from: Readonly<Record<string, string>>): void {
  for (const name in from) into[name] = from[name]!;
}
