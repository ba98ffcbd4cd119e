// A stage is stream-free logic: `step` maps one input to zero or more outputs, `flush` runs at the
// end of input. Besides its values a stage may output typed notes (lib/notes.ts): the runners here
// hand each note to the `note` hook of every later stage, never to `step`, and then to whoever
// consumes the chain (the response writer). `toTransform` is the thin object-mode adapter that lets
// `stream/promises` pipeline run a chain of stages, tearing every stage down when any of them fails.
import { Transform } from 'node:stream';
import type { RequestContext } from './context.js';
import { GatewayError } from './errors.js';
import { isNote, type ChainNote, type Outcome } from './notes.js';

export type StageOutput<O> = Iterable<O> | AsyncIterable<O> | undefined | void;

export interface Stage<I, O> {
  readonly name: string;
  /**
   * A promise this stage makes (optional; absent is no promise): no item its `step`, `steps` or
   * `flush` outputs is ever a ChainNote, neither one it makes nor one it heard through `note` and
   * would hand on itself (the notes it hears go on past it anyway: the runner forwards them, not the
   * stage). Its outputs are then its own inputs (values: `step` never gets a note) or objects it makes
   * that are not notes (messages, events, strings). The fused runner (fused-runner.ts) then does not
   * ask `isNote` of any of its outputs, so a broken promise would send a note into the next stage's
   * `step`: `runStage`, `toTransform` and `chain`, which ask every output anyway, throw when a stage
   * that promised outputs a note (tests run stages that way).
   */
  readonly outputsNoNotes?: true;
  /**
   * A promise this stage makes (optional): an async iterable its `step` returns waits only for the
   * gateway's own store (settle's: the commit of the answer's charge), never for the provider, the
   * client or a timer, and so ends within one commit. While another answer is running, the server's
   * writer (lib/pipeline.ts) then keeps what it wrote in the same tick just before that wait in the
   * socket, with what follows it: the last frames of the provider's last chunk and the answer's final
   * frames go out in one write (one segment, one wake-up of the client) instead of two, one commit
   * apart.
   */
  readonly waitsOnlyForStore?: true;
  /** map one input chunk to outputs (an array, a generator, or nothing) */
  step(chunk: I, ctx: RequestContext): StageOutput<O>;
  /**
   * Optional, for the runner of a whole chain (lib/fused-chain.ts): the values `chunks[from..to)`
   * (the frames of one upstream chunk; no note among them) taken as `step` would take them one by
   * one, their outputs pushed in order onto `out`, with no array per chunk. It returns the index of
   * the first chunk it did not take (`to` when it took them all): the runner hands that one to
   * `step` (a chunk whose output is not an array, such as settle's commit, or any the stage leaves
   * to `step`). When a chunk's step throws, the outputs of the chunks before it are in `out`: the
   * later stages take them before the error goes on, as they would have one chunk at a time; a later
   * stage's failure on an earlier chunk still wins. So a stage may take chunks after one a later stage
   * fails on: what `steps` does with a chunk must show only in its outputs and its own state (a chunk
   * whose handling logs or writes anywhere else is left to `step`).
   */
  steps?(chunks: readonly I[], from: number, to: number, out: unknown[], ctx: RequestContext): number;
  /** end of input: emit what is left */
  flush?(ctx: RequestContext): StageOutput<O>;
  /**
   * The chain failed after this stage had produced output: return the dialect's terminal in-band
   * frames (an SSE `error` event, a `response.failed`, a chat error chunk). Only the last stage of
   * the chain that defines `fail` (the client encoder) is asked.
   */
  fail?(error: GatewayError, ctx: RequestContext): Iterable<O>;
  /**
   * A note an earlier stage output (lib/notes.ts): what this stage learns from it. The note goes on
   * down the chain whatever this does; a note is never passed to `step`.
   */
  note?(note: ChainNote, ctx: RequestContext): void;
  /**
   * Always called exactly once when the request ends; `error` is set when the chain failed, and
   * `outcome` is what the client got (status and error code), when the runner knows it.
   */
  close?(ctx: RequestContext, error: GatewayError | undefined, outcome?: Outcome): void | Promise<void>;
}

/** The values of an output type, without its notes (what the next stage's `step` receives). */
export type Values<O> = Exclude<O, ChainNote>;

/** A factory builds a fresh stage (with its own state) for each request. */
export type StageFactory<I, O> = (ctx: RequestContext) => Stage<I, O>;

export function defineStage<I, O>(stage: Stage<I, O>): Stage<I, O> {
  return stage;
}

export function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return value != null && typeof (value as AsyncIterable<T>)[Symbol.asyncIterator] === 'function';
}

/** What a stage that promised `outputsNoNotes` but output a note fails with: a bug in that stage. */
export function brokenPromise(stage: Stage<unknown, unknown>, note: ChainNote): Error {
  return new Error(`stage ${stage.name} promised outputsNoNotes but output a '${note.note}' note`);
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

/**
 * Object-mode Transform around a stage. Byte stages still work: Buffers are objects too. Notes pass
 * through the stream, so a pipeline of such Transforms carries them from stage to stage; the last
 * Transform (`last: true`) emits them as 'note' events instead of pushing them to the consumer.
 */
export function toTransform<I, O>(stage: Stage<I, O>, ctx: RequestContext, opts: { last?: boolean } = {}): Transform {
  const last = opts.last ?? true;
  // a note from upstream goes on (as the stage heard it) by `pass`; what the stage outputs by `push`,
  // which holds a stage that promised `outputsNoNotes` to it
  const pass = (o: unknown): void => {
    if (last && isNote(o)) t.emit('note', o);
    else t.push(o);
  };
  const push: (o: O) => void =
    stage.outputsNoNotes !== true
      ? pass
      : (o) => {
          if (isNote(o)) throw brokenPromise(stage as Stage<unknown, unknown>, o);
          t.push(o);
        };
  const t = new Transform({
    objectMode: true,
    highWaterMark: 16,
    transform(chunk: I | ChainNote, _enc, cb) {
      if (isNote(chunk)) {
        stage.note?.(chunk, ctx);
        pass(chunk);
        cb();
        return;
      }
      let pending: Promise<void> | undefined;
      try {
        pending = emit(stage.step(chunk, ctx), push);
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
        pending = emit(stage.flush(ctx), push);
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

/**
 * Run a stage over a whole input without streams (tests, replay, custom pipelines): its values, in
 * order. Notes among the inputs go to the stage's `note` hook; notes it outputs go to `onNote`.
 */
export async function runStage<I, O>(stage: Stage<I, O>, inputs: Iterable<I | ChainNote> | AsyncIterable<I | ChainNote>, ctx: RequestContext, onNote?: (note: ChainNote) => void): Promise<Values<O>[]> {
  const out: Values<O>[] = [];
  const push = (o: O): void => {
    if (isNote(o)) {
      if (stage.outputsNoNotes === true) throw brokenPromise(stage as Stage<unknown, unknown>, o);
      onNote?.(o);
    } else out.push(o as Values<O>);
  };
  for await (const input of inputs) {
    if (isNote(input)) {
      stage.note?.(input, ctx);
      onNote?.(input);
    } else await drain(stage.step(input, ctx), push);
  }
  if (stage.flush) await drain(stage.flush(ctx), push);
  return out;
}

/** A note output before stage `from`: every later stage's `note` hook hears it. */
export function tell(stages: readonly Stage<unknown, unknown>[], from: number, note: ChainNote, ctx: RequestContext): void {
  for (let k = from; k < stages.length; k++) stages[k]!.note?.(note, ctx);
}

/**
 * Compose two stages into one: `chain(a, b)` is a Stage<A, C> only when a's output values are b's
 * input, so a mismatched chain is a compile error. Notes pass between the parts and out of the whole
 * (its type names the last part's values only: runStage and toTransform hand the notes aside).
 */
export function chain<A, B, C>(a: Stage<A, B>, b: Stage<Values<B>, C>): Stage<A, C>;
export function chain<A, B, C, D>(a: Stage<A, B>, b: Stage<Values<B>, C>, c: Stage<Values<C>, D>): Stage<A, D>;
export function chain<A, B, C, D, E>(a: Stage<A, B>, b: Stage<Values<B>, C>, c: Stage<Values<C>, D>, d: Stage<Values<D>, E>): Stage<A, E>;
export function chain(...stages: Stage<unknown, unknown>[]): Stage<unknown, unknown> {
  async function* through(index: number, input: Iterable<unknown> | AsyncIterable<unknown>, ctx: RequestContext): AsyncGenerator<unknown> {
    if (index === stages.length) {
      yield* input;
      return;
    }
    const stage = stages[index]!;
    for await (const item of input) {
      if (isNote(item)) {
        // the output of stage index - 1 (the chain's input at 0)
        if (index > 0 && stages[index - 1]!.outputsNoNotes === true) throw brokenPromise(stages[index - 1]!, item);
        tell(stages, index, item, ctx);
        yield item;
        continue;
      }
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
    note: (note, ctx) => tell(stages, 0, note, ctx),
    close: async (ctx, error, outcome) => {
      for (const s of stages) await s.close?.(ctx, error, outcome);
    },
  };
}
