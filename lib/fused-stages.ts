// What the fused runner (fused-runner.ts) reads of each stage once per chain, not at every use: the
// stages are objects of many shapes, so each read of a member of one is a megamorphic load (a
// stub-cache probe, and a full lookup on a miss). Read here, whether a stage has `steps`, `flush` or a
// `note` hook costs an array load at each level turn, at the end and for each note (the stream chain
// 722 K -> 712 K instructions per Chat stream, bench/chain-cost.js).
import type { RequestContext } from './context.js';
import type { ChainNote } from './notes.js';
import type { Stage } from './stage.js';

export class StageFacts {
  /**
   * by level number: its items are the outputs of a stage that promised `outputsNoNotes` (lib/stage.ts),
   * so none is asked whether it is a note (level 0, the chain's input, is always asked)
   */
  readonly quiet: boolean[];
  /** by stage number: whether it has `steps` */
  readonly batches: boolean[];
  /** by stage number: whether it has `flush` */
  readonly flushes: boolean[];
  /** the stages with a `note` hook, in order: a note is told to these alone (see `tell`) */
  private readonly hearers: number[] = [];

  constructor(stages: readonly Stage<unknown, unknown>[]) {
    const n = stages.length;
    const quiet = (this.quiet = new Array<boolean>(n + 1).fill(false));
    const batches = (this.batches = new Array<boolean>(n).fill(false));
    const flushes = (this.flushes = new Array<boolean>(n).fill(false));
    for (let i = 0; i < n; i++) {
      const stage = stages[i]!;
      quiet[i + 1] = stage.outputsNoNotes === true;
      batches[i] = stage.steps !== undefined;
      flushes[i] = stage.flush !== undefined;
      if (stage.note !== undefined) this.hearers.push(i);
    }
  }

  /**
   * A note output before stage `from`: every later stage's `note` hook hears it, in order (as
   * lib/stage.ts `tell` has it), only the stages that have one asked.
   */
  tell(stages: readonly Stage<unknown, unknown>[], from: number, note: ChainNote, ctx: RequestContext): void {
    const hearers = this.hearers;
    for (let k = 0; k < hearers.length; k++) {
      const i = hearers[k]!;
      if (i >= from) stages[i]!.note!(note, ctx);
    }
  }
}
