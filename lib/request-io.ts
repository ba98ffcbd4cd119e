// The two ends of a request's chain without stream objects: the request body as a pull-based async
// iterator over node:http's own 'data' events, and the response as direct `res.write` calls with
// drain waits and a keep-alive timer. One Readable, one Writable and the pipeline machinery per
// request (with its AbortController and DOMException on every finish) cost more CPU than the
// gateway's whole JSON validation did.
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { RequestContext } from './context.js';
import { ChunkQueue } from './chunk-queue.js';
import { joinPieces } from './stage.js';

/**
 * The request body as an AsyncIterableIterator<Buffer>, on node:http's 'data' events (Node's own
 * async iterator costs a stream-finished watcher and several promises per read). It reads ahead up
 * to READ_AHEAD bytes, then pauses the request until the consumer catches up (backpressure).
 * Stopping early (`return`, `fail`) detaches it and lets Node read and drop the rest, never
 * buffered, so an early error can still be answered.
 */
export class ChunkReader extends ChunkQueue {
  constructor(private readonly source: Readable) {
    super();
    source.on('data', this.onData);
    source.once('end', this.onEnd);
    source.on('error', this.onError); // kept after stopping: a late 'error' must never go unheard
    source.once('close', this.onClose);
  }

  private readonly onData = (chunk: Buffer): void => {
    if (!this.push(chunk)) this.source.pause();
  };

  private readonly onEnd = (): void => {
    this.end();
  };

  private readonly onError = (err: unknown): void => {
    this.fail(err);
  };

  private readonly onClose = (): void => {
    if (!this.sourceEnded && !this.failed) this.fail(Object.assign(new Error('the stream closed before its end'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
  };

  protected resumeProducer(): void {
    this.source.resume();
  }

  protected stopProducer(): void {
    this.source.off('data', this.onData);
    this.source.off('close', this.onClose);
    this.source.resume(); // discard whatever is left; never buffer it
  }
}

/**
 * Writes a chain's output to the response: status and headers before the first byte (from
 * `ctx.response`), then each piece as one `res.write`; a whole-document answer (`ctx.response.whole`)
 * goes out at the end in one write with its `content-length`. `write` returns a promise only when the
 * socket asked the writer to wait (backpressure); it resolves on 'drain' or when the response
 * closes. While the provider is silent, one timer per streaming response writes the dialect's
 * keep-alive frame (`ctx.keepalive`) every `pingMs`.
 */
export class ResponseSink {
  private timer: NodeJS.Timeout | null = null;
  private lastWrite = 0;
  /** the pieces of a whole-document answer (`ctx.response.whole`), sent by `end` */
  private held: (string | Buffer)[] | null = null;

  constructor(
    private readonly ctx: RequestContext,
    private readonly res: ServerResponse,
    private readonly pingMs: number,
  ) {}

  private head(): void {
    const ctx = this.ctx;
    if (ctx.response.sent) return;
    this.res.writeHead(ctx.response.status, ctx.response.headers);
    ctx.response.sent = true;
    ctx.outcome ??= { status: ctx.response.status };
  }

  private readonly ping = (): void => {
    this.timer = null;
    const res = this.res;
    if (this.ctx.keepalive === null || res.destroyed || res.writableEnded) return;
    const idle = Date.now() - this.lastWrite;
    if (idle >= this.pingMs) {
      res.write(this.ctx.keepalive);
      this.lastWrite = Date.now();
    }
    this.timer = setTimeout(this.ping, idle >= this.pingMs ? this.pingMs : this.pingMs - idle);
  };

  /** undefined when the piece went out (or was queued within the socket's buffer), else wait for the promise */
  write(chunk: string | Buffer): Promise<void> | undefined {
    if (this.ctx.response.whole === true) {
      (this.held ??= []).push(chunk);
      return undefined;
    }
    this.head();
    const res = this.res;
    const ok = res.write(chunk);
    if (this.ctx.keepalive !== null) {
      this.lastWrite = Date.now();
      if (this.timer === null) this.timer = setTimeout(this.ping, this.pingMs);
    }
    if (ok || res.destroyed) return undefined;
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
      this.ctx.response.headers['content-length'] = String(Buffer.byteLength(body));
      this.head();
      this.res.end(body);
      return;
    }
    this.head();
    this.res.end();
  }

  stopTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
