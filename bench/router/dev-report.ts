// The figures the training options are tuned with, on dev.jsonl: per dataset, the router's cost
// saved at ≥ 95 % of always-strongest quality (and the same for random mixing, for scale), and how
// well a target fixed on one half of dev transfers to the other half (even and odd prompts, both
// ways): the quality it reaches there, as a share of always-strongest's, and the cost it saves.
import { loadRouter } from '../../lib/router/index.js';
import { DATASETS, readModels, readSplit, strongest, type DataItem, type DataModel } from './data.js';
import { always, pooledSaved, savedAt95, table, targetCurve, TARGETS, type Point, type PooledRun } from './metrics.js';

const TARGETED = ['routellm-mmlu', 'routellm-gsm8k', 'llmrouter-dcrouter'];

export function devReport(weightsPath: string): string {
  const router = loadRouter(weightsPath);
  const lines: string[] = [];
  let sum = 0;
  const runs: PooledRun[] = [];
  for (const dataset of DATASETS) {
    const models = readModels(dataset);
    const items = readSplit(dataset, 'dev');
    const t = table(items, models);
    const M = models.length;
    const profiles = models.map((m) => router.learned[m.name]!);
    const pred = new Float64Array(t.n * M);
    items.forEach((it, i) => pred.set(router.predict(it.input, profiles), i * M));
    const s = models.indexOf(strongest(models));
    const top = always(t, s);
    const curve = targetCurve(t, pred);
    runs.push({ n: t.n, top, curve });
    const ours = savedAt95(curve, top);
    if (TARGETED.includes(dataset)) sum += ours?.saved ?? 0;
    const cheapest = models.reduce((a, m, j) => (m.price.output < models[a]!.price.output ? j : a), 0);
    const low = always(t, cheapest);
    const mix: Point[] = Array.from({ length: 101 }, (_, k) => ({ quality: low.quality + (k / 100) * (top.quality - low.quality), cost: low.cost + (k / 100) * (top.cost - low.cost) }));
    const random = savedAt95(mix, top);
    const halves = transfer(items, models, pred, s);
    lines.push(`${dataset.padEnd(20)} dev n=${String(t.n).padStart(5)}  router saved ${fmt(ours?.saved)}  random ${fmt(random?.saved)}  strongest q=${top.quality.toFixed(3)}  half→half: ${halves}`);
  }
  lines.push(`mean saved over MMLU, GSM8K, 9-model: ${fmt(sum / TARGETED.length)}`);
  lines.push(`pooled (one target for all ${String(runs.reduce((a, r) => a + r.n, 0))} prompts): ${fmt(pooledSaved(runs) ?? undefined)}`);
  return `${lines.join('\n')}\n`;
}

/** The target fixed on the even prompts read on the odd ones, and the other way. */
function transfer(items: readonly DataItem[], models: readonly DataModel[], pred: Float64Array, s: number): string {
  const M = models.length;
  const half = (r: number): { t: ReturnType<typeof table>; pred: Float64Array } => {
    const idx = items.map((_, i) => i).filter((i) => i % 2 === r);
    const p = new Float64Array(idx.length * M);
    idx.forEach((i, k) => p.set(pred.subarray(i * M, i * M + M), k * M));
    return { t: table(idx.map((i) => items[i]!), models), pred: p };
  };
  const parts = [half(0), half(1)];
  return [0, 1].map((from) => {
    const a = parts[from]!, b = parts[1 - from]!;
    const topA = always(a.t, s), topB = always(b.t, s);
    const curveA = targetCurve(a.t, a.pred);
    let knob = TARGETS.length - 1;
    curveA.forEach((p, j) => { if (p.quality >= 0.95 * topA.quality - 1e-12 && p.cost < curveA[knob]!.cost) knob = j; });
    const p = targetCurve(b.t, b.pred, [TARGETS[knob]!])[0]!;
    return `${((100 * p.quality) / topB.quality).toFixed(1)} % q, ${(100 * (1 - p.cost / topB.cost)).toFixed(1)} % saved`;
  }).join(' | ');
}

function fmt(x: number | undefined): string {
  return x === undefined ? '  n/a' : `${(x * 100).toFixed(1).padStart(5)} %`;
}
