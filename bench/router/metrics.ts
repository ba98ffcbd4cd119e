// The evaluation's arithmetic: the mean quality and cost of a choice per prompt, and the cost saved
// at ≥ 95 % of always-strongest quality along a router's knob (the same rule for every router: the
// cheapest knob setting whose mean quality reaches 95 % of the strongest model's on the same prompts).
import type { DataItem, DataModel } from './data.js';
import { promptCost } from '../../lib/router/prompt-input.js';

export interface Table {
  models: readonly DataModel[];
  /** scores[i * M + m] */
  scores: Float64Array;
  /** costs[i * M + m], USD */
  costs: Float64Array;
  n: number;
}

export function table(items: readonly DataItem[], models: readonly DataModel[]): Table {
  const M = models.length;
  const scores = new Float64Array(items.length * M);
  const costs = new Float64Array(items.length * M);
  items.forEach((it, i) => {
    models.forEach((m, j) => {
      scores[i * M + j] = it.scores[m.name] ?? 0;
      costs[i * M + j] = promptCost(it.input, m.price);
    });
  });
  return { models, scores, costs, n: items.length };
}

export interface Point {
  quality: number;
  cost: number;
}

/** Mean quality and cost of choosing model choice[i] for prompt i. */
export function pointOf(t: Table, choice: ArrayLike<number>): Point {
  const M = t.models.length;
  let q = 0, c = 0;
  for (let i = 0; i < t.n; i++) {
    q += t.scores[i * M + choice[i]!]!;
    c += t.costs[i * M + choice[i]!]!;
  }
  return { quality: q / t.n, cost: c / t.n };
}

export function always(t: Table, m: number): Point {
  return pointOf(t, new Int32Array(t.n).fill(m));
}

/**
 * The cost saved (a fraction of always-strongest's cost) at the cheapest point of `curve` whose
 * quality is ≥ 95 % of always-strongest's; null when no point reaches it.
 */
export function savedAt95(curve: readonly Point[], strongest: Point, share = 0.95): { saved: number; point: Point } | null {
  let best: Point | null = null;
  for (const p of curve) if (p.quality >= share * strongest.quality - 1e-12 && (best === null || p.cost < best.cost)) best = p;
  return best === null ? null : { saved: 1 - best.cost / strongest.cost, point: best };
}

/** Cheapest candidate whose predicted quality ≥ target × the best's (the contract's rule, on arrays). */
export function choose(pred: Float64Array, costs: Float64Array, offset: number, M: number, target: number): number {
  let best = -Infinity;
  for (let m = 0; m < M; m++) if (pred[offset + m]! > best) best = pred[offset + m]!;
  let chosen = -1;
  for (let m = 0; m < M; m++) {
    const q = pred[offset + m]!;
    if (q < best * target) continue;
    if (chosen < 0 || costs[offset + m]! < costs[offset + chosen]! || (costs[offset + m] === costs[offset + chosen] && q > pred[offset + chosen]!)) chosen = m;
  }
  return chosen;
}

/** The targets swept for a predicted-quality router (0.5 … 1 by 0.0025). */
export const TARGETS = Array.from({ length: 201 }, (_, i) => 0.5 + i * 0.0025);

/** A predicted-quality router's curve over TARGETS; pred[i * M + m]. */
export function targetCurve(t: Table, pred: Float64Array, targets: readonly number[] = TARGETS): Point[] {
  const M = t.models.length;
  const choice = new Int32Array(t.n);
  return targets.map((target) => {
    for (let i = 0; i < t.n; i++) choice[i] = choose(pred, t.costs, i * M, M, target);
    return pointOf(t, choice);
  });
}

/** One dataset's share of a pooled reading: its size, always-strongest's point, its curve over TARGETS. */
export interface PooledRun {
  n: number;
  top: Point;
  curve: readonly Point[];
}

/**
 * The cost saved on all datasets' prompts together at one target for all (the evaluation's pooled
 * row): the curves weighted by each dataset's size, read at ≥ 95 % of always-strongest's pooled quality.
 */
export function pooledSaved(runs: readonly PooledRun[]): number | null {
  const n = runs.reduce((a, r) => a + r.n, 0);
  const mean = (f: (r: PooledRun) => number): number => runs.reduce((a, r) => a + f(r) * r.n, 0) / n;
  const top = { quality: mean((r) => r.top.quality), cost: mean((r) => r.top.cost) };
  const curve = runs[0]!.curve.map((_, j) => ({ quality: mean((r) => r.curve[j]!.quality), cost: mean((r) => r.curve[j]!.cost) }));
  return savedAt95(curve, top)?.saved ?? null;
}
