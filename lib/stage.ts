// A stage is stream-free logic: `step` maps one input to zero or more outputs, `flush` runs at the
// end of input. `toTransform` is the thin object-mode adapter that lets `stream/promises` pipeline
// run a chain of stages, tearing every stage down when any of them fails.
import { Transform } from 'node:stream';
import type { RequestContext } from './context.js';
import { GatewayError } from './errors.js';

export type StageOutput<O> = Iterable<O> | AsyncIterable<O> | undefined | void;

export interface Stage<I, O> {
  readonly name: string;
  /** map one input chunk to outputs (an array, a generator, or nothing) */
  step(chunk: I, ctx: RequestContext): StageOutput<O>;
  /** end of input: emit what is left */
  flush?(ctx: RequestContext): StageOutput<O>;
  /**
   * The chain failed after this stage had produced output: return the dialect's terminal in-band
   * frames (an SSE `error` event, a `response.failed`, a chat error chunk). Only the last stage of
   * the chain that defines `fail` (the client encoder) is asked.
   */
  fail?(error: GatewayError, ctx: RequestContext): Iterable<O>;
  /** always called exactly once when the request ends; `error` is set when the chain failed */
  close?(ctx: RequestContext, error: GatewayError | undefined): void | Promise<void>;
}

/** A factory builds a fresh stage (with its own state) for each request. */
export type StageFactory<I, O> = (ctx: RequestContext) => Stage<I, O>;

export function defineStage<I, O>(stage: Stage<I, O>): Stage<I, O> {
  return stage;
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return value != null && typeof (value as AsyncIterable<T>)[Symbol.asyncIterator] === 'function';
}

async function drain<O>(out: StageOutput<O>, push: (o: O) => void): Promise<void> {
  if (out == null) return;
  if (isAsyncIterable<O>(out)) {
    for await (const o of out) push(o);
  } else {
    for (const o of out) push(o);
  }
}

/** Push synchronously when the stage returned a plain iterable (the common case: no promise per chunk). */
function emit<O>(out: StageOutput<O>, push: (o: O) => void): Promise<void> | undefined {
  if (out == null) return undefined;
  if (isAsyncIterable<O>(out)) return drain(out, push);
  for (const o of out) push(o);
  return undefined;
}

/** Object-mode Transform around a stage. Byte stages still work: Buffers are objects too. */
export function toTransform<I, O>(stage: Stage<I, O>, ctx: RequestContext): Transform {
  const t = new Transform({
    objectMode: true,
    highWaterMark: 16,
    transform(chunk: I, _enc, cb) {
      let pending: Promise<void> | undefined;
      try {
        pending = emit(stage.step(chunk, ctx), (o) => t.push(o));
      } catch (err) {
        cb(GatewayError.from(err));
        return;
      }
      if (pending === undefined) cb();
      else pending.then(() => cb(), (err: unknown) => cb(GatewayError.from(err)));
    },
    flush(cb) {
      if (!stage.flush) {
        cb();
        return;
      }
      let pending: Promise<void> | undefined;
      try {
        pending = emit(stage.flush(ctx), (o) => t.push(o));
      } catch (err) {
        cb(GatewayError.from(err));
        return;
      }
      if (pending === undefined) cb();
      else pending.then(() => cb(), (err: unknown) => cb(GatewayError.from(err)));
    },
  });
  return t;
}

/** Run a stage over a whole input without streams (tests, replay, custom pipelines). */
export async function runStage<I, O>(stage: Stage<I, O>, inputs: Iterable<I> | AsyncIterable<I>, ctx: RequestContext): Promise<O[]> {
  const out: O[] = [];
  const push = (o: O): void => {
    out.push(o);
  };
  for await (const input of inputs) await drain(stage.step(input, ctx), push);
  if (stage.flush) await drain(stage.flush(ctx), push);
  return out;
}

/**
 * Compose two stages into one: `chain(a, b)` is a Stage<A, C> only when a's output is b's input, so a
 * mismatched chain is a compile error.
 */
export function chain<A, B, C>(a: Stage<A, B>, b: Stage<B, C>): Stage<A, C>;
export function chain<A, B, C, D>(a: Stage<A, B>, b: Stage<B, C>, c: Stage<C, D>): Stage<A, D>;
export function chain<A, B, C, D, E>(a: Stage<A, B>, b: Stage<B, C>, c: Stage<C, D>, d: Stage<D, E>): Stage<A, E>;
export function chain(...stages: Stage<unknown, unknown>[]): Stage<unknown, unknown> {
  async function* through(index: number, input: Iterable<unknown> | AsyncIterable<unknown>, ctx: RequestContext): AsyncGenerator<unknown> {
    if (index === stages.length) {
      yield* input;
      return;
    }
    const stage = stages[index]!;
    for await (const item of input) {
      const out = stage.step(item, ctx);
      if (out != null) yield* through(index + 1, out as Iterable<unknown>, ctx);
    }
  }
  async function* flushFrom(index: number, ctx: RequestContext): AsyncGenerator<unknown> {
    for (let i = index; i < stages.length; i++) {
      const out = stages[i]!.flush?.(ctx);
      if (out != null) yield* through(i + 1, out as Iterable<unknown>, ctx);
    }
  }
  return {
    name: stages.map((s) => s.name).join('+'),
    step: (chunk, ctx) => through(0, [chunk], ctx),
    flush: (ctx) => flushFrom(0, ctx),
    close: async (ctx, error) => {
      for (const s of stages) await s.close?.(ctx, error);
    },
  };
}

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
 * nothing is pulled from upstream before the consumer asks for more (backpressure holds).
 */
export function fuseStages<O extends string | Buffer>(stages: readonly Stage<unknown, unknown>[], ctx: RequestContext): (source: AsyncIterable<unknown>) => AsyncGenerator<O> {
  const chain = new FusedChain<O>(stages, ctx);
  return (source) => chain.run(source);
}
