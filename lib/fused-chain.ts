// The production runner: a whole list of stages fused into ONE step (see fuseStages below), so a
// synchronous stage costs a function call per chunk instead of an object-mode stream each, and a
// stage with `steps` one call for all the frames of an upstream chunk. The chain's loop is
// fused-runner.ts.
import type { RequestContext } from './context.js';
import type { ChainNote } from './notes.js';
import type { Stage } from './stage.js';
import { generate } from './fused-drive.js';
import { FusedChain } from './fused-runner.js';

export { FusedChain };

/**
 * Run a whole list of stages as ONE pipeline step: an async-generator transform that drives each
 * stage's `step`/`flush` directly. Synchronous stages cost a function call per chunk instead of an
 * object-mode stream each; an asynchronous stage (dispatch reading the upstream body) is iterated
 * in place; the frames of one upstream chunk go into a stage with `steps` at once (no array and
 * no call through a megamorphic site per frame and stage), with the same outcome as one at a time.
 * What one upstream chunk turns into is handed on as one piece (one response write), and
 * nothing is pulled from upstream before the consumer asks for more (backpressure holds). Notes
 * go to the later stages' `note` hooks and then to `onNote` (the response writer), not into the output.
 */
export function fuseStages<O extends string | Buffer>(stages: readonly Stage<unknown, unknown>[], ctx: RequestContext, onNote?: (note: ChainNote) => void): (source: AsyncIterable<unknown>) => AsyncGenerator<O> {
  const chain = new FusedChain<O>(stages, ctx, onNote);
  return (source) => generate(chain, source);
}

/** `fuseStages(stages, ctx, onNote)(source)` at once, without the intermediate function. */
export function runFused<O extends string | Buffer>(stages: readonly Stage<unknown, unknown>[], ctx: RequestContext, onNote: ((note: ChainNote) => void) | undefined, source: AsyncIterable<unknown>): AsyncGenerator<O> {
  return generate(new FusedChain<O>(stages, ctx, onNote), source);
}

/**
 * The chain started on `source`, driven by its caller without a generator (the server's path, once
 * per request): `work` until READY (write `take()`), ENDED, or an item to await (give its result to
 * `received`, its failure to `sourceFailed`); after a throw of `work` or `received`, `close(true)`;
 * a consumer that stops early calls `close(false)`. A piece ready at once costs no promise, and no
 * async generator's yield (an await, a promise and a request object each) goes between a chunk and
 * its write.
 */
export function startFused<O extends string | Buffer>(stages: readonly Stage<unknown, unknown>[], ctx: RequestContext, onNote: ((note: ChainNote) => void) | undefined, source: AsyncIterable<unknown>): FusedChain<O> {
  const chain = new FusedChain<O>(stages, ctx, onNote);
  chain.start(source);
  return chain;
}
