// The router evaluation (issue #13, decisions.md §15) over ../shared/router-data:
//
//   node dist/bench/router/run.js [--split dev|test] [--quick]
//
// Per dataset and pooled: the learned router against always-strongest, always-cheapest, random
// mixing of the two, kNN and the LiteLLM / Bifrost heuristics — mean quality and cost at the
// cheapest knob setting reaching ≥ 95 % of always-strongest quality, the cost saved there, and the
// decision time p50/p99. Every router with a knob is read at its best setting on the evaluated split
// (RouteLLM's convention); the learned router is also shown at the target chosen on dev.jsonl, which
// is what a deployment would run. --quick: dev split, 300 prompts per dataset (CI). The default split
// is test: the figures of the README, reported once the router was fixed on dev.
import { parseArgs } from 'node:util';
import { DATASETS, type Split } from './data.js';
import { savedAt95, type Point } from './metrics.js';
import { runDataset, type DatasetRun, type RouterRun } from './routers.js';

const TARGETED = ['routellm-mmlu', 'routellm-gsm8k', 'llmrouter-dcrouter'];

interface Row {
  name: string;
  point: Point | null;
  saved: number | null;
  times: number[];
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function rowOf(run: RouterRun, top: Point): Row {
  if (run.curve.length === 1) {
    const p = run.curve[0]!;
    return { name: run.name, point: p, saved: p.quality >= 0.95 * top.quality - 1e-12 ? 1 - p.cost / top.cost : null, times: run.times };
  }
  const at = savedAt95(run.curve, top);
  return { name: run.name, point: at?.point ?? null, saved: at?.saved ?? null, times: run.times };
}

function format(title: string, top: Point, rows: readonly Row[]): string {
  const lines = [
    `### ${title}`,
    '',
    '| router | quality | % of strongest | cost, USD per 1k prompts | cost saved at ≥ 95 % | decision p50 ms | p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const t = [...r.times].sort((a, b) => a - b);
    const q = r.point === null ? '—' : r.point.quality.toFixed(3);
    const share = r.point === null ? '—' : `${((100 * r.point.quality) / top.quality).toFixed(1)} %`;
    const cost = r.point === null ? '—' : (r.point.cost * 1000).toFixed(3);
    const saved = r.saved === null ? 'not reached' : `${(100 * r.saved).toFixed(1)} %`;
    const p50 = t.length === 0 ? '—' : percentile(t, 0.5).toFixed(4);
    const p99 = t.length === 0 ? '—' : percentile(t, 0.99).toFixed(4);
    lines.push(`| ${r.name} | ${q} | ${share} | ${cost} | ${saved} | ${p50} | ${p99} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** The learned router at the target chosen on dev: what a deployment runs (may fall short of 95 %). */
function devRow(run: RouterRun, top: Point): Row {
  const p = run.curve[run.devKnob!]!;
  return { name: 'learned router, target fixed on dev', point: p, saved: p.quality >= 0.95 * top.quality - 1e-12 ? 1 - p.cost / top.cost : null, times: [] };
}

function weighted(points: readonly { p: Point; n: number }[]): Point {
  const n = points.reduce((a, b) => a + b.n, 0);
  return { quality: points.reduce((a, b) => a + b.p.quality * b.n, 0) / n, cost: points.reduce((a, b) => a + b.p.cost * b.n, 0) / n };
}

/** All datasets' prompts together, each router on one knob setting for all (its best). */
function pooled(runs: readonly DatasetRun[]): { top: Point; rows: Row[] } {
  const top = weighted(runs.map((d) => ({ p: d.strongest, n: d.t.n })));
  const rows = runs[0]!.runs.map((r, k) => {
    const curves = runs.map((d) => d.runs[k]!);
    const length = curves[0]!.curve.length;
    const curve = Array.from({ length }, (_, j) => weighted(runs.map((d, i) => ({ p: curves[i]!.curve[j]!, n: d.t.n }))));
    return rowOf({ name: r.name, curve, times: curves.flatMap((c) => c.times) }, top);
  });
  const dev = weighted(runs.map((d) => ({ p: d.runs[0]!.curve[d.runs[0]!.devKnob!]!, n: d.t.n })));
  rows.splice(1, 0, { name: 'learned router, target fixed on dev (per dataset)', point: dev, saved: dev.quality >= 0.95 * top.quality ? 1 - dev.cost / top.cost : null, times: [] });
  return { top, rows };
}

export function evaluate(split: Split, limit: number): { text: string; saved: Record<string, Record<string, number | null>> } {
  const runs = DATASETS.map((d) => runDataset(d, split, limit));
  let text = '';
  const saved: Record<string, Record<string, number | null>> = {};
  for (const d of runs) {
    const rows = d.runs.map((r) => rowOf(r, d.strongest));
    rows.splice(1, 0, devRow(d.runs[0]!, d.strongest));
    saved[d.dataset] = Object.fromEntries(rows.map((r) => [r.name, r.saved]));
    text += `${format(`${d.dataset} (${split}, ${d.t.n} prompts, ${d.t.models.length} models; strongest ${d.strongestName})`, d.strongest, rows)}\n`;
  }
  const pool = pooled(runs);
  saved.pooled = Object.fromEntries(pool.rows.map((r) => [r.name, r.saved]));
  text += `${format(`pooled (${split}, all ${runs.reduce((a, d) => a + d.t.n, 0)} prompts, one knob setting for all)`, pool.top, pool.rows)}\n`;
  text += summary(saved);
  return { text, saved };
}

function summary(saved: Record<string, Record<string, number | null>>): string {
  const ours = 'learned router (ours)';
  const pct = (x: number | null | undefined): string => (x === null || x === undefined ? 'not reached' : `${(100 * x).toFixed(1)} %`);
  const mean = TARGETED.reduce((a, d) => a + (saved[d]![ours] ?? 0), 0) / TARGETED.length;
  const lines = [`Cost saved at ≥ 95 % of always-strongest quality, mean over MMLU, GSM8K and the 9-model set: ${pct(mean)} (target ≥ 50 %)`];
  for (const d of DATASETS) {
    const r = saved[d]!;
    const ratio = (h: string): string => {
      const x = r[h];
      const o = r[ours];
      return x === null || x === undefined || x <= 0 ? `heuristic saves ${pct(x)}` : `${((o ?? 0) / x).toFixed(2)}×`;
    };
    lines.push(`  ${d}: ours ${pct(r[ours])}; vs LiteLLM ${ratio('LiteLLM complexity_router (re-impl.)')}, vs Bifrost ${ratio('Bifrost complexity (re-impl.)')} (target ≥ 1.5×)`);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { split: { type: 'string' }, quick: { type: 'boolean' } } });
  const quick = values.quick === true;
  const split = (values.split ?? (quick ? 'dev' : 'test')) as Split;
  if (!['dev', 'test'].includes(split)) throw new Error('--split is dev or test');
  const started = Date.now();
  const { text } = evaluate(split, quick ? 300 : Infinity);
  process.stdout.write(text);
  process.stderr.write(`bench/router: ${split}${quick ? ' (quick)' : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
