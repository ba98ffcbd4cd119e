// Every router of the evaluation on one dataset split, each as a curve of (quality, cost) points
// along its own knob, on one shared knob index so the datasets can be pooled: the learned router
// (target), kNN (target), the two heuristics (tier boundaries scaled), random mixing (share sent to
// the strongest). Fixed routers (always-strongest, always-cheapest, the oracle) are one point.
import { loadRouter, type LearnedRouterApi } from '../../lib/router/index.js';
import type { RouterCandidate } from '../../lib/router/router-api.js';
import { readModels, readSplit, strongest, type DataItem, type DataModel, type Dataset, type Split } from './data.js';
import { bifrostScore, litellmScore, tierOf } from './heuristics.js';
import { Knn } from './knn.js';
import { always, choose, pointOf, table, type Point, type Table } from './metrics.js';

export const KNOBS = 201;
/** knob j of the target routers: 0.5 … 1 */
const targetAt = (j: number): number => 0.5 + (0.5 * j) / (KNOBS - 1);
/**
 * knob j of the heuristics: boundaries × 100 … × 0.01, and × 0 last (every prompt REASONING: a
 * prompt that scores 0 stays SIMPLE at any positive scale), so the sweep runs from all cheapest to
 * all strongest.
 */
const scaleAt = (j: number): number => (j === KNOBS - 1 ? 0 : Math.pow(10, 2 - (4 * j) / (KNOBS - 2)));

export interface RouterRun {
  name: string;
  /** KNOBS points, or one for a fixed router */
  curve: Point[];
  /** decision times, ms (empty: nothing to decide) */
  times: number[];
  /** the knob index picked on dev (the learned router only) */
  devKnob?: number;
}

export interface DatasetRun {
  dataset: Dataset;
  t: Table;
  strongest: Point;
  strongestName: string;
  runs: RouterRun[];
}

function timed(times: number[], f: () => void): void {
  const t0 = process.hrtime.bigint();
  f();
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}

/** The curve of a predicted-quality router over the target knobs. */
function targetCurve(t: Table, pred: Float64Array): Point[] {
  const M = t.models.length;
  const choice = new Int32Array(t.n);
  return Array.from({ length: KNOBS }, (_, j) => {
    for (let i = 0; i < t.n; i++) choice[i] = choose(pred, t.costs, i * M, M, targetAt(j));
    return pointOf(t, choice);
  });
}

/** The models an operator would give the four tiers: the price/quality frontier by train mean. */
function tierModels(models: readonly DataModel[]): number[] {
  const byPrice = models.map((m, i) => ({ m, i })).sort((a, b) => a.m.price.output - b.m.price.output || b.m.trainMean - a.m.trainMean);
  const frontier: number[] = [];
  let best = -Infinity;
  for (const { m, i } of byPrice) if (m.trainMean > best) (best = m.trainMean), frontier.push(i);
  const L = frontier.length;
  return [frontier[0]!, frontier[Math.floor((L - 1) / 2)]!, frontier[L - 1]!, frontier[L - 1]!];
}

function heuristicRun(name: string, t: Table, items: readonly DataItem[], tiers: number[], score: (it: DataItem) => { score: number; reasoning: boolean }): RouterRun {
  const times: number[] = [];
  const scored = items.map((it) => {
    let s = { score: 0, reasoning: false };
    timed(times, () => (s = score(it)));
    return s;
  });
  const choice = new Int32Array(t.n);
  const curve = Array.from({ length: KNOBS }, (_, j) => {
    scored.forEach((s, i) => (choice[i] = tiers[s.reasoning ? 3 : tierOf(s.score, scaleAt(j))]!));
    return pointOf(t, choice);
  });
  return { name, curve, times };
}

/** The knob index whose point is cheapest at ≥ 95 % of `top`'s quality (the last one if none is). */
export function knobAt95(curve: readonly Point[], top: Point): number {
  let at = curve.length - 1;
  curve.forEach((p, j) => {
    if (p.quality >= 0.95 * top.quality - 1e-12 && p.cost < curve[at]!.cost) at = j;
  });
  return at;
}

function learnedPredictions(router: LearnedRouterApi, items: readonly DataItem[], models: readonly DataModel[]): Float64Array {
  const M = models.length;
  const profiles = models.map((m) => router.learned[m.name]!);
  const pred = new Float64Array(items.length * M);
  items.forEach((it, i) => pred.set(router.predict(it.input, profiles), i * M));
  return pred;
}

export function runDataset(dataset: Dataset, split: Split, limit: number): DatasetRun {
  const models = readModels(dataset);
  const all = readSplit(dataset, split);
  // a limited run takes every k-th prompt: the files are ordered by subject
  const stride = Math.max(1, Math.ceil(all.length / limit));
  const items = all.filter((_, i) => i % stride === 0);
  const t = table(items, models);
  const M = models.length;
  const s = models.indexOf(strongest(models));
  const top = always(t, s);
  const cheapest = models.reduce((a, m, j) => (m.price.output < models[a]!.price.output || (m.price.output === models[a]!.price.output && m.trainMean > models[a]!.trainMean) ? j : a), 0);
  const low = always(t, cheapest);
  const router = loadRouter();

  // the learned router: predictions once, then every target; timed as the gateway calls it
  const pred = learnedPredictions(router, items, models);
  const times: number[] = [];
  const candidates: RouterCandidate[] = models.map((m) => ({ id: m.name, quality: router.learned[m.name]!, cost: 0 }));
  for (const it of items.slice(0, 50)) router.decide(it.input, candidates, 0.95); // warm-up
  items.forEach((it, i) => {
    for (let m = 0; m < M; m++) (candidates[m] as { cost: number }).cost = t.costs[i * M + m]!;
    timed(times, () => router.decide(it.input, candidates, 0.95));
  });
  const dev = split === 'dev' ? { t, pred } : (() => {
    const devItems = readSplit(dataset, 'dev');
    const dt = table(devItems, models);
    return { t: dt, pred: learnedPredictions(router, devItems, models) };
  })();
  const devKnob = knobAt95(targetCurve(dev.t, dev.pred), always(dev.t, s));
  const learned: RouterRun = { name: 'learned router (ours)', curve: targetCurve(t, pred), times, devKnob };

  // kNN over this dataset's train split
  const train = readSplit(dataset, 'train');
  const trainTable = table(train, models);
  const knn = new Knn(train.map((it) => it.input), trainTable.scores, M);
  const knnPred = new Float64Array(t.n * M);
  const knnTimes: number[] = [];
  items.forEach((it, i) => timed(knnTimes, () => knn.predict(it.input, knnPred, i * M)));

  const tiers = tierModels(models);
  const oracle = Int32Array.from(items, (_, i) => {
    let best = 0;
    for (let m = 1; m < M; m++) {
      const d = t.scores[i * M + m]! - t.scores[i * M + best]!;
      if (d > 0 || (d === 0 && t.costs[i * M + m]! < t.costs[i * M + best]!)) best = m;
    }
    return best;
  });
  const runs: RouterRun[] = [
    learned,
    { name: 'always-strongest', curve: [top], times: [] },
    { name: 'always-cheapest', curve: [low], times: [] },
    { name: 'random mix (cheapest/strongest)', curve: Array.from({ length: KNOBS }, (_, j) => mix(low, top, j / (KNOBS - 1))), times: [] },
    { name: 'kNN (k=20, same n-grams)', curve: targetCurve(t, knnPred), times: knnTimes },
    heuristicRun('LiteLLM complexity_router (re-impl.)', t, items, tiers, (it) => ({ score: litellmScore(it.input), reasoning: false })),
    heuristicRun('Bifrost complexity (re-impl.)', t, items, tiers, (it) => bifrostScore(it.input)),
    { name: 'oracle (per prompt, for scale)', curve: [pointOf(t, oracle)], times: [] },
  ];
  return { dataset, t, strongest: top, strongestName: models[s]!.name, runs };
}

function mix(low: Point, top: Point, p: number): Point {
  return { quality: low.quality + p * (top.quality - low.quality), cost: low.cost + p * (top.cost - low.cost) };
}
