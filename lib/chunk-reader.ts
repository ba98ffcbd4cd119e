// The request body's end of a chain without a stream object: a pull-based async iterator over
// node:http's own 'data' events (request-io.ts holds the response's end).
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { ChunkQueue } from './chunk-queue.js';

/**
 * The request body as an AsyncIterableIterator<Buffer>, on node:http's 'data' events (Node's own
 * async iterator costs a stream-finished watcher and several promises per read). It reads ahead up
 * to READ_AHEAD bytes, then pauses the request until the consumer catches up (backpressure).
 * Stopping early (`return`, `fail`) detaches it and lets Node read and drop the rest, never
 * buffered, so an early error can still be answered.
 */
export class ChunkReader extends ChunkQueue {
  /** the body's declared length (Content-Length), -1 without one */
  private readonly declared: number;
  /** the bytes of the body come so far */
  private received = 0;

  constructor(private readonly source: Readable) {
    super();
    const length = (source as Readable & { headers?: IncomingHttpHeaders }).headers?.['content-length'];
    this.declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : -1;
    // plain listeners: 'end' and 'close' come once per request (a `once` wrapper per listener and
    // its removal when it fires cost more than the listener)
    source.on('data', this.onData);
    source.on('end', this.onEnd);
    source.on('error', this.onError); // kept after stopping: a late 'error' must never go unheard
    source.on('close', this.onClose);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.received += chunk.length;
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

  /**
   * Every byte of a body of declared length came out as 'data': node:http holds a body to its
   * declared length, so nothing more comes, though it says so ('end') only from a later callback. The
   * chain gets the end at once, without a wait of its own for it (a small body's data and its end
   * were two waits). A chunked body, or a stream that is not a request (a test's), waits for 'end'.
   */
  protected override producerDone(): boolean {
    return this.received === this.declared;
  }

  protected resumeProducer(): void {
    this.source.resume();
  }

  protected stopProducer(): void {
    this.source.off('data', this.onData);
    this.source.off('close', this.onClose);
    this.source.resume(); // discard whatever is left; never buffer it
  }
}
