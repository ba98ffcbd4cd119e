// The check beside dev.jsonl: k-fold cross-validation inside train.jsonl. Each fold is trained on
// the other folds' prompts (every dataset's, with the same options as train.ts) and scored on its
// own; the held-out predictions of all folds are read together, per dataset, as the evaluation
// reads a split: the cost saved at ≥ 95 % of always-strongest quality along the target knob.
//
//   node dist/bench/router/cross-validate.js [--folds 3] [train.ts's fit options]
//
// GSM8K's dev split has 258 prompts: its figure moves by about ten points with the sample, while
// train.jsonl's 813 give a steadier one. Reads train.jsonl only (fold = prompt index mod k).
import { parseArgs } from 'node:util';
import { directSlots, int8Weights, PromptScorer, qualityOf, type QuantizedWeights } from '../../lib/router/weights.js';
import { DATASETS, readSplit, strongest, readModels } from './data.js';
import { fit, type FitItem } from './fit.js';
import { always, pooledSaved, savedAt95, table, targetCurve, type PooledRun } from './metrics.js';
import { SKILLS } from './skill-labels.js';
import { FIT_ARGS, fitModels, fitOptionsFrom, loadItems, skillNames, subjectClasses } from './train.js';

const TARGETED = ['routellm-mmlu', 'routellm-gsm8k', 'llmrouter-dcrouter'];

function main(): void {
  const { values } = parseArgs({ options: { folds: { type: 'string' }, ...FIT_ARGS } });
  const k = Number(values.folds ?? 3);
  const options = fitOptionsFrom(values);
  const models: string[] = [];
  const priors = new Map<string, number[]>();
  const subjects = subjectClasses(options);
  const items = loadItems('train', models, priors, options.balance, options.smoothLength, subjects);
  const skills = skillNames(options, subjects);
  // loadItems lists the datasets' prompts in order: dataset d's are [first[d], first[d] + n)
  const rows = DATASETS.map((d) => readSplit(d, 'train'));
  const first = rows.map((_, d) => rows.slice(0, d).reduce((a, r) => a + r.length, 0));
  const held = rows.map((r, d) => new Float64Array(r.length * readModels(DATASETS[d]!).length));
  for (let f = 0; f < k; f++) {
    const inFold = (d: number, i: number): boolean => i % k === f;
    const train: FitItem[] = [];
    rows.forEach((r, d) => r.forEach((_, i) => { if (!inFold(d, i)) train.push(items[first[d]! + i]!); }));
    const result = fit(train, fitModels(models, priors), skills, SKILLS.length, options, subjects.length);
    // with --bits 8, the held-out prompts are scored with the int8 weights train.ts would write
    const weights: Float32Array | QuantizedWeights = options.bits === 8 ? int8Weights(result.weights, result.heads) : result.weights;
    const subjectHeads = result.heads - options.members * (1 + SKILLS.length + options.factors);
    const map = result.subjectMap === undefined ? {} : { map: Float64Array.from(result.subjectMap) };
    const scorer = new PromptScorer(skills, SKILLS.length, weights, result.heads, options.members, directSlots(options.direct), { classes: subjects.length, heads: subjectHeads, ...map });
    rows.forEach((r, d) => {
      const dataModels = readModels(DATASETS[d]!);
      const profiles = dataModels.map((m) => result.profiles[models.indexOf(m.name)]!);
      r.forEach((it, i) => {
        if (!inFold(d, i)) return;
        scorer.score(it.input);
        profiles.forEach((p, m) => (held[d]![i * dataModels.length + m] = qualityOf(scorer.out, skills, p)));
      });
    });
  }
  let sum = 0;
  const runs: PooledRun[] = [];
  DATASETS.forEach((dataset, d) => {
    const dataModels = readModels(dataset);
    const t = table(rows[d]!, dataModels);
    const top = always(t, dataModels.indexOf(strongest(dataModels)));
    const curve = targetCurve(t, held[d]!);
    runs.push({ n: t.n, top, curve });
    const saved = savedAt95(curve, top)?.saved ?? 0;
    if (TARGETED.includes(dataset)) sum += saved / TARGETED.length;
    process.stdout.write(`${dataset.padEnd(20)} ${k}-fold CV on train n=${String(t.n).padStart(5)}  router saved ${(100 * saved).toFixed(1).padStart(5)} %\n`);
  });
  process.stdout.write(`mean saved over MMLU, GSM8K, 9-model: ${(100 * sum).toFixed(1)} %\n`);
  process.stdout.write(`pooled (one target for all ${String(runs.reduce((a, r) => a + r.n, 0))} prompts): ${(100 * (pooledSaved(runs) ?? 0)).toFixed(1)} %\n`);
}

main();
