// The loop of the fused runner (fused-chain.ts): the state of one chain of stages fused into one
// step, fed level by level. Its entry points (fuseStages, runFused, startFused) are in fused-chain.ts.
import type { RequestContext } from './context.js';
import { isNote, type ChainNote } from './notes.js';
import { isAsyncIterable, type Stage, type StageOutput } from './stage.js';
import { joinPieces, Level } from './fused-level.js';
import { allText, NO_NOTES, notePlaces, runTo } from './fused-runs.js';
import { ENDED, READY, type Workable } from './fused-drive.js';
import { StageFacts } from './fused-stages.js';

/**
 * The state of one fused chain: the levels with items left, as a stack (the highest level on top:
 * its items are fed first, depth first, as nested loops would). At most one async generator per
 * request (fused-drive.ts `generate`; the server drives `work` itself, see `startFused`), and none per stage output: a
 * stage that answered synchronously costs no promise, and one that answered with an async iterable
 * (dispatch's body, settle's commit) is awaited in place, not through a generator per level above it.
 */
export class FusedChain<O extends string | Buffer> implements Workable<O> {
  /** the pieces of output since the last `take` */
  private out: O[] = [];
  private readonly n: number;
  /** what the runner reads of each stage once (fused-stages.ts) */
  private readonly facts: StageFacts;
  /** by level number: whether its items are known not to be notes (`facts.quiet`) */
  private readonly quiet: boolean[];
  /** by level number; undefined until the level is first pushed */
  private readonly levels: (Level | undefined)[];
  /** level numbers with items left, lowest first */
  private readonly stack: number[] = [];
  private depth = 0;
  /** the stages flushed so far, in order, once the input ended */
  private flushing = 0;

  constructor(
    private readonly stages: readonly Stage<unknown, unknown>[],
    private readonly ctx: RequestContext,
    private readonly onNote: ((note: ChainNote) => void) | undefined,
  ) {
    this.n = stages.length;
    this.levels = new Array<Level | undefined>(this.n + 1).fill(undefined);
    this.facts = new StageFacts(stages);
    this.quiet = this.facts.quiet;
  }

  private level(i: number): Level {
    return this.levels[i] ?? (this.levels[i] = new Level());
  }

  /**
   * One item into stage i (i === n: a final output), and on down the chain while each stage answers
   * with one item (the common case: a frame is one event is one piece of text): a loop, not a call
   * of `through` and `feed` per stage. An output of several items, an iterator or an async iterable
   * goes to `through`, which pushes a level.
   */
  private feed(i: number, item: unknown): void {
    const { stages, n, ctx, quiet } = this;
    for (;;) {
      if (!quiet[i] && isNote(item)) {
        // a few per request: every later stage hears it, then the consumer
        this.facts.tell(stages, i, item, ctx);
        this.onNote?.(item);
        return;
      }
      if (i === n) {
        this.out.push(item as O);
        return;
      }
      const items = stages[i]!.step(item, ctx);
      i++;
      if (items == null) return;
      if (!Array.isArray(items) || items.length !== 1) {
        this.through(i, items);
        return;
      }
      item = items[0];
    }
  }

  /** a stage's output, into level i */
  private through(i: number, items: StageOutput<unknown>): void {
    if (items == null) return;
    let level: Level;
    if (Array.isArray(items)) {
      // an array of one item (a flush's output) is fed at once, no level pushed
      if (items.length === 0) return;
      if (items.length === 1) {
        this.feed(i, items[0]);
        return;
      }
      const pushed = this.push(i, items);
      if (this.quiet[i]) pushed.notes = NO_NOTES;
      return;
    } else if (isAsyncIterable<unknown>(items)) {
      level = this.level(i);
      level.asyncIter = items[Symbol.asyncIterator]();
      level.pulled = false;
    } else {
      level = this.level(i);
      level.iter = (items as Iterable<unknown>)[Symbol.iterator]();
    }
    this.stack[this.depth++] = i;
  }

  private pop(level: Level): void {
    level.items = undefined;
    level.iter = undefined;
    level.asyncIter = undefined;
    level.failed = false;
    level.error = undefined;
    this.depth--;
  }

  /**
   * The items of level i (i < n) into a stage with `steps`, from `level.pos`: a note is told as
   * `feed` tells it; else the values up to the next note go in at once, and what came out is
   * pushed as level i + 1 (taken before the rest of this level, as one at a time would have it).
   * A throw leaves this level failed under those outputs; a later stage's throw, about an earlier
   * frame, then wins, as it would have one frame at a time.
   */
  private batch(i: number, level: Level, stage: Stage<unknown, unknown>): void {
    const items = level.items!;
    const from = level.pos;
    const first = items[from];
    let taken = from;
    const out: unknown[] = [];
    const to = runTo(level, items, from);
    if (to > from) {
      try {
        taken = stage.steps!(items, from, to, out, this.ctx);
      } catch (err) {
        if (out.length === 0) {
          this.pop(level);
          throw err;
        }
        level.items = undefined;
        level.failed = true;
        level.error = err;
        this.push(i + 1, out);
        return;
      }
    }
    if (taken === from) {
      // a note, or a value the stage leaves to `step`: as `feed` takes it
      level.pos = from + 1;
      if (level.pos === items.length) this.pop(level);
      this.feed(i, first);
      return;
    }
    level.pos = taken;
    if (taken === items.length) this.pop(level);
    if (out.length === 0) return;
    if (i + 1 < this.n) {
      // where its notes are: none, when the stage promised so; else found now mostly without
      // asking `isNote` (fused-runs.ts)
      this.push(i + 1, out).notes = this.quiet[i + 1] ? NO_NOTES : notePlaces(out, items, from, taken);
      return;
    }
    // the last stage's outputs: each to the output (a note to `onNote`) now, as the level they
    // would make, being on top, would have them fed next, one at a time; a string (a frame) is
    // a piece of output at once, and a first piece that is all the output so far takes its array
    const pieces = this.out;
    if (pieces.length === 0 && allText(out)) {
      this.out = out as O[];
      return;
    }
    for (let k = 0; k < out.length; k++) {
      const piece = out[k];
      if (typeof piece === 'string') pieces.push(piece as O);
      else this.feed(i + 1, piece);
    }
  }

  /** several items into level i (its runs of values still to be found) */
  private push(i: number, items: unknown[]): Level {
    const level = this.level(i);
    level.items = items;
    level.pos = 0;
    level.end = 0;
    level.notes = undefined;
    level.nextNote = 0;
    this.stack[this.depth++] = i;
    return level;
  }

  /** Ending early (a failure, or the consumer stopped): the async iterables still open are closed, innermost first. */
  private async closeOpen(failed: boolean): Promise<void> {
    while (this.depth > 0) {
      const level = this.levels[this.stack[this.depth - 1]!]!;
      const iter = level.asyncIter;
      this.pop(level);
      if (iter?.return === undefined) continue;
      try {
        await iter.return();
      } catch (err) {
        if (!failed) throw err; // a failure already on its way wins, as for-await has it
      }
    }
  }

  /**
   * The request body is the bottom level, an async iterable like any other. The levels are fed
   * until none has items left; what was output goes to the consumer before each further item is
   * awaited from an async iterable (what one upstream chunk turned into goes on as one piece), and
   * once the input ended the stages are flushed in order.
   */
  start(source: AsyncIterable<unknown>): void {
    this.level(0).asyncIter = source[Symbol.asyncIterator]();
    this.stack[this.depth++] = 0;
  }

  /**
   * Feed the levels until a piece of output is ready (READY: `take` it), the next item of an async
   * iterable must be awaited (its promise: its result goes to `received`, its failure to
   * `sourceFailed`), or the chain ended (ENDED). Throws what a stage threw (then `close(true)`).
   * Synchronous: a chain whose stages answered at once costs no promise between two outputs.
   */
  work(): Promise<IteratorResult<unknown>> | typeof READY | typeof ENDED {
    // `this.out`, not a copy of it: `batch` may hand the chain a new array of pieces
    const { levels, stages, n } = this;
    const { batches, flushes } = this.facts;
    for (;;) {
      while (this.depth > 0) {
        const i = this.stack[this.depth - 1]!;
        const level = levels[i]!;
        if (level.failed) {
          const err = level.error;
          this.pop(level);
          throw err;
        }
        if (level.items !== undefined) {
          if (i < n && batches[i]) {
            this.batch(i, level, stages[i]!);
            continue;
          }
          const item = level.items[level.pos++];
          // popped before its last item is fed, not after what that item started ended: a stage's
          // output array (route's, with the request) is not kept for as long as an answer streams
          if (level.pos === level.items.length) this.pop(level);
          this.feed(i, item);
          continue;
        }
        if (level.iter !== undefined) {
          const r = level.iter.next();
          if (r.done === true) this.pop(level);
          else this.feed(i, r.value);
          continue;
        }
        if (level.pulled && this.out.length > 0) return READY;
        level.pulled = true;
        try {
          return level.asyncIter!.next();
        } catch (err) {
          this.pop(level); // it failed: nothing to close
          throw err;
        }
      }
      if (this.out.length > 0) return READY;
      while (this.flushing < n && !flushes[this.flushing]) this.flushing++;
      if (this.flushing === n) return ENDED;
      const i = this.flushing++;
      this.through(i + 1, stages[i]!.flush!(this.ctx));
    }
  }

  /** the piece of output `work` said was ready */
  take(): O {
    const joined = joinPieces(this.out);
    this.out.length = 0;
    return joined;
  }

  /**
   * Whether the item `work` said to await comes from a stage that promised `waitsOnlyForStore`
   * (lib/stage.ts): level i holds stage i − 1's outputs.
   */
  awaitsStoreOnly(): boolean {
    const i = this.stack[this.depth - 1]!;
    return i > 0 && this.stages[i - 1]!.waitsOnlyForStore === true;
  }

  /** what the awaited async iterable (the level on top) gave */
  received(r: IteratorResult<unknown>): void {
    const i = this.stack[this.depth - 1]!;
    const level = this.levels[i]!;
    if (r.done === true) this.pop(level);
    else this.feed(i, r.value);
  }

  /** the awaited async iterable (the level on top) failed: nothing to close there */
  sourceFailed(): void {
    this.pop(this.levels[this.stack[this.depth - 1]!]!);
  }

  /** Ending early: the async iterables still open are closed (see `closeOpen`); nothing to do once none is. */
  close(failed: boolean): Promise<void> | undefined {
    return this.depth > 0 ? this.closeOpen(failed) : undefined;
  }
}
