// A pull queue of byte chunks between a push-style producer (node:http 'data' events, undici's
// handler callbacks) and an async-iterator consumer (the fused stages), without a stream object in
// between. It holds up to READ_AHEAD bytes the consumer has not taken yet; `push` returns false
// beyond that, and the producer pauses until `resumeProducer` is called (backpressure).
import { DONE, type Pulled, type ReadyIterator } from './fused-drive.js';

export const READ_AHEAD = 64 * 1024;

export abstract class ChunkQueue implements AsyncIterableIterator<Buffer> {
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private held = false;
  private ended = false;
  private stopped = false;
  private failure: unknown = undefined;
  private waiter: { resolve: (r: IteratorResult<Buffer>) => void; reject: (err: unknown) => void } | null = null;

  /** the consumer caught up after `push` returned false: let the producer go on */
  protected abstract resumeProducer(): void;
  /** the consumer stopped early or the queue failed: detach from the producer */
  protected abstract stopProducer(): void;

  get sourceEnded(): boolean {
    return this.ended;
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** a chunk from the producer; false: over the read-ahead, pause until `resumeProducer` */
  protected push(chunk: Buffer): boolean {
    if (this.stopped) return true;
    const w = this.waiter;
    if (w !== null) {
      this.waiter = null;
      w.resolve({ done: false, value: chunk });
      return true;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued <= READ_AHEAD) return true;
    this.held = true;
    return false;
  }

  /**
   * Whether the producer gave every chunk it will give, known before it says so (`end`): the
   * consumer then gets the end at once instead of waiting for it. Default: not known.
   */
  protected producerDone(): boolean {
    return false;
  }

  /** the consumer is told the source ended (the end is delivered, not when it came): a subclass may note it */
  protected endDelivered(): void {}

  /** what the consumer sees of the source's failure when it is delivered: the failure itself unless a subclass says */
  protected failureShown(err: unknown): unknown {
    return err;
  }

  /** the producer ended normally */
  protected end(): void {
    this.ended = true;
    const w = this.waiter;
    if (w !== null) {
      this.waiter = null;
      this.endDelivered();
      w.resolve(DONE);
    }
  }

  /** The source failed (or the request aborted): a pending `next` rejects with the first error, and so does every later one. */
  fail(err: unknown): void {
    if (this.failure === undefined) this.failure = err;
    const w = this.waiter;
    this.stop();
    if (w !== null) {
      this.waiter = null;
      w.reject(this.failureShown(this.failure));
    }
  }

  next(): Promise<IteratorResult<Buffer>> {
    const r = this.pull();
    return r instanceof Promise ? r : Promise.resolve(r);
  }

  /**
   * `next` for a reader that takes a result as itself (fused-drive.ts `Pulled`): a chunk already
   * queued, or the end already come, is answered at once, no promise and no turn for it; a
   * failure is always a rejected promise.
   */
  pull(): Pulled<Buffer> {
    if (this.queue.length > 0) {
      const chunk = this.queue.shift()!;
      this.queued -= chunk.length;
      if (this.held && this.queued <= READ_AHEAD) {
        this.held = false;
        this.resumeProducer();
      }
      return { done: false, value: chunk };
    }
    if (this.failure !== undefined) return Promise.reject(this.failureShown(this.failure));
    if (!this.ended && !this.stopped && this.producerDone()) this.ended = true;
    if (this.ended) this.endDelivered();
    if (this.ended || this.stopped) return DONE;
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The consumer is done early: detach from the producer (see `stopProducer`). */
  return(): Promise<IteratorResult<Buffer>> {
    this.stop();
    return Promise.resolve(DONE);
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.length = 0;
    this.queued = 0;
    this.stopProducer();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** the queue read through `pull` (see ReadyReads) */
  readyReads(): ReadyIterator<Buffer> {
    return new ReadyReads(this);
  }
}

/**
 * A queue as a reader that takes a result as itself reads it (the server's fused chain, its request
 * body as the chain's input): `next` is the queue's `pull`. The queue's own `next` answers promises,
 * as an async iterator's must for any other reader.
 */
class ReadyReads implements ReadyIterator<Buffer> {
  constructor(private readonly queue: ChunkQueue) {}

  next(): Pulled<Buffer> {
    return this.queue.pull();
  }

  return(): Promise<IteratorResult<Buffer>> {
    return this.queue.return();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
