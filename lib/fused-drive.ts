// How a fused chain (fused-chain.ts) is driven: its `work` says what came of it, and a consumer
// that wants an async generator (`fuseStages`, `runFused`, the tests and the bench) gets one here.
// The server drives `work` itself (lib/pipeline.ts), with no generator between a chunk and its write.

/**
 * What an async iterator's `next` answers: the promise of its result or, from the iterators the
 * gateway's own stages and queues output (a note or an item known at once, a queued chunk, the
 * end), the result itself when it is there already. `for await` and `await` take either (they
 * await what `next` returns); the server's runner (lib/pipeline.ts) and `generate` take a result
 * that is there without an await: no promise, no microtask turn and no resumption for it (about
 * half the awaits of a streamed answer were of items already there).
 */
export type Pulled<T> = Promise<IteratorResult<T>> | IteratorResult<T>;

/** an iterator's end, as a result: one object for every iterator of the chain that answers it itself */
export const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** An async iterator whose `next` answers with its result itself when it has it (see Pulled). */
export interface ReadyIterator<T> {
  next(): Pulled<T>;
  return?(): Promise<IteratorResult<T>>;
  [Symbol.asyncIterator](): ReadyIterator<T>;
}

/** the result itself: neither a promise nor another thenable (an iterator from elsewhere may answer one) */
export function isReady<T>(pulled: Pulled<T>): pulled is IteratorResult<T> {
  return !(pulled instanceof Promise) && typeof (pulled as { then?: unknown }).then !== 'function';
}

/**
 * A ready iterator where an async iterable is typed (a stage's output, a response body): the type
 * promises a promise from `next`, and every consumer of these awaits what `next` returns (the
 * runners here, `for await`, `await`), none calls `.then` on it.
 */
export function asAsyncIterator<T>(iterator: ReadyIterator<T>): AsyncIterableIterator<T> {
  return iterator as unknown as AsyncIterableIterator<T>;
}

/** what `work` came to besides an item to await: a piece of output is ready, or the chain ended */
export const READY = 0;
export const ENDED = 1;

/** What driving needs of a started chain (FusedChain). */
export interface Workable<O> {
  /** the chain's input, its bottom level */
  start(source: AsyncIterable<unknown>): void;
  /** until a piece is READY (`take` it), the chain ENDED, or an item must be awaited (its promise, or the item itself when it is there: see Pulled) */
  work(): Pulled<unknown> | typeof READY | typeof ENDED;
  take(): O;
  /** the awaited item's result (or the item that was there) */
  received(r: IteratorResult<unknown>): void;
  /** the awaited item's promise rejected */
  sourceFailed(): void;
  /** ending early: what is still open is closed (`failed`: a failure is on its way, which wins) */
  close(failed: boolean): Promise<void> | undefined;
}

/** A chain on `source` as an async generator (started at the first `next`): the consumer's `return` (or a failure) closes what is still open. */
export async function* generate<O>(chain: Workable<O>, source: AsyncIterable<unknown>): AsyncGenerator<O> {
  chain.start(source);
  let failed = false;
  try {
    for (;;) {
      const w = chain.work();
      if (w === READY) yield chain.take();
      else if (w === ENDED) return;
      else if (isReady(w)) chain.received(w);
      else {
        let r: IteratorResult<unknown>;
        try {
          r = await w;
        } catch (err) {
          chain.sourceFailed();
          throw err;
        }
        chain.received(r);
      }
    }
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    const closing = chain.close(failed);
    if (closing !== undefined) await closing;
  }
}
