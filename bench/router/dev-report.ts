// The figures the training options are tuned with: per dataset, on dev.jsonl, the router's cost
// saved at ≥ 95 % of always-strongest quality (and the same for random mixing, for scale).
import { loadRouter } from '../../lib/router/index.js';
import { DATASETS, readModels, readSplit, strongest } from './data.js';
import { always, savedAt95, table, targetCurve, type Point } from './metrics.js';

export function devReport(weightsPath: string): string {
  const router = loadRouter(weightsPath);
  const lines: string[] = [];
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
    const ours = savedAt95(targetCurve(t, pred), top);
    const cheapest = models.reduce((a, m, j) => (m.price.output < models[a]!.price.output ? j : a), 0);
    const low = always(t, cheapest);
    const mix: Point[] = Array.from({ length: 101 }, (_, k) => ({ quality: low.quality + (k / 100) * (top.quality - low.quality), cost: low.cost + (k / 100) * (top.cost - low.cost) }));
    const random = savedAt95(mix, top);
    lines.push(`${dataset.padEnd(20)} dev n=${String(t.n).padStart(5)}  router saved ${fmt(ours?.saved)}  random ${fmt(random?.saved)}  strongest q=${top.quality.toFixed(3)}`);
  }
  return `${lines.join('\n')}\n`;
}

function fmt(x: number | undefined): string {
  return x === undefined ? '  n/a' : `${(x * 100).toFixed(1).padStart(5)} %`;
}
