// At `debug`, the pipeline wraps each stage to add up the time spent inside its `step` and `flush`
// calls (the synchronous work; an asynchronous stage such as dispatch is timed until it hands back
// its iterator, its waiting shows as the request's upstream time). Off at `info`: no wrapper.
import { performance } from 'node:perf_hooks';
import type { Stage } from './stage.js';

export class StageTimings {
  private readonly totals = new Map<string, number>();

  wrap<I, O>(stage: Stage<I, O>): Stage<I, O> {
    const totals = this.totals;
    totals.set(stage.name, totals.get(stage.name) ?? 0);
    const timed = <R>(run: () => R): R => {
      const t0 = performance.now();
      try {
        return run();
      } finally {
        totals.set(stage.name, totals.get(stage.name)! + performance.now() - t0);
      }
    };
    // the step is the stage's own, so its promise about what it awaits still holds
    const wrapped: Stage<I, O> = {
      name: stage.name,
      step: (chunk, ctx) => timed(() => stage.step(chunk, ctx)),
      ...(stage.waitsOnlyForStore === true ? { waitsOnlyForStore: true } : {}),
    };
    if (stage.flush) wrapped.flush = (ctx) => timed(() => stage.flush!(ctx));
    if (stage.note) wrapped.note = (note, ctx) => timed(() => stage.note!(note, ctx));
    if (stage.fail) wrapped.fail = (error, ctx) => stage.fail!(error, ctx);
    if (stage.close) wrapped.close = (ctx, error, outcome) => stage.close!(ctx, error, outcome);
    return wrapped;
  }

  /** milliseconds per stage, rounded to microseconds */
  report(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, ms] of this.totals) out[name] = Math.round(ms * 1000) / 1000;
    return out;
  }
}
