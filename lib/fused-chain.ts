// The production runner: a whole list of stages fused into ONE step (see fuseStages below), so a
// synchronous stage costs a function call per chunk instead of an object-mode stream each.
import type { RequestContext } from './context.js';
import { isNote, type ChainNote } from './notes.js';
import { isAsyncIterable, tell, type Stage, type StageOutput } from './stage.js';

type Pending = AsyncGenerator<void, void, undefined>;

/** Pieces of output as one: the piece itself, the joined text, or the concatenated bytes. */
export function joinPieces<O extends string | Buffer>(pieces: readonly O[]): O {
  if (pieces.length === 1) return pieces[0]!;
  if (pieces.every((p) => typeof p === 'string')) return pieces.join('') as O;
  return Buffer.concat(pieces.map((p): Buffer => (typeof p === 'string' ? Buffer.from(p) : (p as Buffer)))) as O;
}

/**
 * The state of one fused chain. A class, not closures: its generator methods are shared by every
 * request (one function, one prototype, one hidden class), where generator functions created per
 * request each cost their own prototype object and map, kept for as long as the stream is open.
 */
class FusedChain<O extends string | Buffer> {
  private readonly out: O[] = [];
  private readonly n: number;

  constructor(
    private readonly stages: readonly Stage<unknown, unknown>[],
    private readonly ctx: RequestContext,
    private readonly onNote: ((note: ChainNote) => void) | undefined,
  ) {
    this.n = stages.length;
  }

  private take(): O {
    const joined = joinPieces(this.out);
    this.out.length = 0;
    return joined;
  }

  /** items into stage i (i === n: final outputs); undefined when everything ran synchronously */
  private through(i: number, items: StageOutput<unknown>): Pending | undefined {
    if (items == null) return undefined;
    if (isAsyncIterable<unknown>(items)) return this.throughAsync(i, items);
    if (Array.isArray(items)) {
      // the common case (a stage returned an array): no iterator object
      for (let k = 0; k < items.length; k++) {
        const pending = this.feed(i, items[k]);
        if (pending) return this.resumeArray(i, pending, items, k + 1);
      }
      return undefined;
    }
    const iter = (items as Iterable<unknown>)[Symbol.iterator]();
    for (let r = iter.next(); !r.done; r = iter.next()) {
      const pending = this.feed(i, r.value);
      if (pending) return this.resume(i, pending, iter);
    }
    return undefined;
  }

  private async *throughAsync(i: number, items: AsyncIterable<unknown>): Pending {
    for await (const item of items) {
      const pending = this.feed(i, item);
      if (pending) yield* pending;
      yield; // an async boundary: let the consumer take what this item produced
    }
  }

  private async *resume(i: number, first: Pending, iter: Iterator<unknown>): Pending {
    yield* first;
    for (let r = iter.next(); !r.done; r = iter.next()) {
      const pending = this.feed(i, r.value);
      if (pending) yield* pending;
    }
  }

  private async *resumeArray(i: number, first: Pending, items: readonly unknown[], from: number): Pending {
    yield* first;
    for (let k = from; k < items.length; k++) {
      const pending = this.feed(i, items[k]);
      if (pending) yield* pending;
    }
  }

  private feed(i: number, item: unknown): Pending | undefined {
    if (isNote(item)) {
      // a few per request: every later stage hears it, then the consumer
      tell(this.stages, i, item, this.ctx);
      this.onNote?.(item);
      return undefined;
    }
    if (i === this.n) {
      this.out.push(item as O);
      return undefined;
    }
    return this.through(i + 1, this.stages[i]!.step(item, this.ctx));
  }

  async *run(source: AsyncIterable<unknown>): AsyncGenerator<O> {
    const out = this.out;
    for await (const chunk of source) {
      const pending = this.feed(0, chunk);
      if (pending) for await (const _ of pending) if (out.length > 0) yield this.take();
      if (out.length > 0) yield this.take();
    }
    const stages = this.stages;
    for (let i = 0; i < this.n; i++) {
      const stage = stages[i]!;
      if (!stage.flush) continue;
      const pending = this.through(i + 1, stage.flush(this.ctx));
      if (pending) for await (const _ of pending) if (out.length > 0) yield this.take();
      if (out.length > 0) yield this.take();
    }
  }
}

/**
 * Run a whole list of stages as ONE pipeline step: an async-generator transform that drives each
 * stage's `step`/`flush` directly. Synchronous stages cost a function call per chunk instead of an
 * object-mode stream each; an asynchronous stage (dispatch reading the upstream body) is iterated
 * in place. What one upstream chunk turns into is handed on as one piece (one response write), and
 * nothing is pulled from upstream before the consumer asks for more (backpressure holds). Notes
 * go to the later stages' `note` hooks and then to `onNote` (the response writer), not into the output.
 */
export function fuseStages<O extends string | Buffer>(stages: readonly Stage<unknown, unknown>[], ctx: RequestContext, onNote?: (note: ChainNote) => void): (source: AsyncIterable<unknown>) => AsyncGenerator<O> {
  const chain = new FusedChain<O>(stages, ctx, onNote);
  return (source) => chain.run(source);
}
