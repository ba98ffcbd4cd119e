// How a fused chain (fused-chain.ts) is driven: its `work` says what came of it, and a consumer
// that wants an async generator (`fuseStages`, `runFused`, the tests and the bench) gets one here.
// The server drives `work` itself (lib/pipeline.ts), with no generator between a chunk and its write.

/** what `work` came to besides an item to await: a piece of output is ready, or the chain ended */
export const READY = 0;
export const ENDED = 1;

/** What driving needs of a started chain (FusedChain). */
export interface Workable<O> {
  /** the chain's input, its bottom level */
  start(source: AsyncIterable<unknown>): void;
  /** until a piece is READY (`take` it), the chain ENDED, or an item must be awaited (its promise) */
  work(): Promise<IteratorResult<unknown>> | typeof READY | typeof ENDED;
  take(): O;
  /** the awaited item's result */
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
