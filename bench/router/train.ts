// Trains the router's shipped weights from ../shared/router-data/*/train.jsonl and writes
// lib/router/weights.json (deterministic: the same data and options give the same bytes).
//
//   node dist/bench/router/train.js [--out FILE] [--dev] [--epochs N] [--rate R] [--l2 X] ...
//
// --dev prints the figures on dev.jsonl that the options were tuned with. This script reads
// train.jsonl and dev.jsonl only: never test.jsonl, never raw/ (test/router/train.long.test.ts
// traces its file opens).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FEATURES, HASH_BITS, STRUCTURAL } from '../../lib/router/encoder.js';
import { encodeWeights, encodeWeights8, WEIGHTS_FORMAT, type WeightsFile } from '../../lib/router/weights.js';
import { DATASETS, readModels, readSplit, REPO_ROOT, type Dataset, type Split } from './data.js';
import { fit, type FitItem, type FitOptions } from './fit.js';
import { factorNames, SKILLS, skillOf } from './skill-labels.js';

/** The options the shipped weights were trained with (chosen on dev.jsonl). */
export const SHIPPED: FitOptions = { seed: 13, epochs: 4, rate: 0.05, profileRate: 0.01, l2: 1e-6, profileL2: 1e-4, mixWeight: 0.3, factors: 8, balance: 0, members: 5, smooth: 0, smoothLength: 0, direct: [], subjectHeads: 0, subjectWeight: 0.3, subjectRate: 0, subjectOther: 0, bits: 16 };

export interface Trained {
  file: WeightsFile;
  models: string[];
}

/** The training items of every dataset for `split` (train or dev), over one list of model names. */
const BALANCE_REFERENCE = 3000;

export function loadItems(split: Exclude<Split, 'test'>, models: string[], priors: Map<string, number[]>, balance: number, smoothLength = 0, subjects: readonly string[] = []): FitItem[] {
  const items: FitItem[] = [];
  const other = subjects.indexOf(OTHER);
  for (const dataset of DATASETS) {
    for (const m of readModels(dataset)) {
      if (!models.includes(m.name)) models.push(m.name);
      if (split === 'train') priors.set(m.name, [...(priors.get(m.name) ?? []), m.trainMean]);
    }
    const rows = readSplit(dataset, split);
    // a dataset's items weigh (reference size / its size)^balance: GSM8K's 813 prompts are not drowned by MMLU's 8,286
    const weight = Math.pow(BALANCE_REFERENCE / rows.length, balance);
    for (const it of rows) {
      const labels = Object.entries(it.scores).map(([name, y]) => [models.indexOf(name), y] as const);
      const subject = dataset === SUBJECT_DATASET ? subjects.indexOf(it.domain ?? '') : other;
      items.push({ input: it.input, skill: skillOf(dataset, it.domain), labels, weight, ...groupOf(dataset, it.domain, it.input, smoothLength), ...(subject >= 0 ? { subject } : {}) });
    }
  }
  return items;
}

/** The dataset whose subjects the subject head learns, and the class of every other dataset's prompts with --subject-other. */
const SUBJECT_DATASET = 'routellm-mmlu';
const OTHER = 'other';

/** The subject head's classes: MMLU's subjects in train.jsonl, sorted (and "other"); none without a subject head. */
export function subjectClasses(options: FitOptions): string[] {
  if (options.subjectHeads === 0) return [];
  const names = [...new Set(readSplit(SUBJECT_DATASET, 'train').map((it) => it.domain ?? ''))].filter((d) => d !== '').sort();
  return options.subjectOther === 1 ? [...names, OTHER] : names;
}

/** The item's group for the label smoothing: its subject or task, else (with smoothLength) its length's octave. */
function groupOf(dataset: string, domain: string | undefined, input: FitItem['input'], smoothLength: number): { group?: string } {
  if (domain !== undefined) return { group: `${dataset}/${domain}` };
  if (smoothLength === 0) return {};
  const chars = input.turns.reduce((a, t) => a + t.text.length, 0);
  return { group: `${dataset}/length-${Math.floor(Math.log2(Math.max(1, chars)))}` };
}

export function train(options: FitOptions = SHIPPED): Trained {
  const models: string[] = [];
  const priors = new Map<string, number[]>();
  const subjects = subjectClasses(options);
  const items = loadItems('train', models, priors, options.balance, options.smoothLength, subjects);
  const skills = skillNames(options, subjects);
  const result = fit(items, fitModels(models, priors), skills, SKILLS.length, options, subjects.length);
  const profiles: WeightsFile['profiles'] = {};
  models.forEach((name, m) => (profiles[name] = result.profiles[m]!));
  const file: WeightsFile = {
    format: WEIGHTS_FORMAT,
    hashBits: HASH_BITS,
    structural: [...STRUCTURAL],
    skills,
    mixture: SKILLS.length,
    members: options.members,
    heads: result.heads,
    ...(options.direct.length > 0 ? { direct: options.direct } : {}),
    ...(subjects.length > 0 ? { subjects, subjectHeads: result.heads - options.members * (1 + SKILLS.length + options.factors) } : {}),
    ...(result.subjectMap !== undefined ? { subjectMap: result.subjectMap } : {}),
    ...(options.bits === 8 ? encodeWeights8(result.weights, result.heads) : encodeWeights(result.weights)),
    profiles,
    training: { script: 'bench/router/train.ts', data: DATASETS.map((d: Dataset) => `${d}/train.jsonl`), features: FEATURES, ...recorded(options), trainLoss: Number(result.loss.toFixed(6)) },
  };
  return { file, models };
}

/** The options as weights.json records them: the later options only when set, so older weights still reproduce byte for byte. */
function recorded(options: FitOptions): Partial<FitOptions> {
  const { smooth, smoothLength, direct, subjectHeads, subjectWeight, subjectRate, subjectOther, bits, ...rest } = options;
  const subject = subjectHeads === 0 ? {} : { subjectHeads, subjectWeight, ...(subjectRate !== 0 ? { subjectRate } : {}), ...(subjectOther !== 0 ? { subjectOther } : {}) };
  return { ...rest, ...(smooth !== 0 ? { smooth } : {}), ...(smoothLength !== 0 ? { smoothLength } : {}), ...(direct.length > 0 ? { direct } : {}), ...subject, ...(bits !== 16 ? { bits } : {}) };
}

/** The models with their starting ability: the mean of their train means over the datasets. */
export function fitModels(models: readonly string[], priors: Map<string, number[]>): { name: string; prior: number }[] {
  return models.map((name) => {
    const means = priors.get(name)!;
    return { name, prior: Math.min(0.95, Math.max(0.05, means.reduce((a, b) => a + b, 0) / means.length)) };
  });
}

/** The profile's offsets: the named skills, every member's free factors (member after member), the subjects, the direct features. */
export function skillNames(options: FitOptions, subjects: readonly string[] = []): string[] {
  return [...SKILLS, ...factorNames(options.members * options.factors), ...subjects.map((s) => `subject:${s}`), ...options.direct.map(directName)];
}

/** A direct dimension's name among the profile's skills: `slope:<structural feature>`. */
export function directName(feature: string): string {
  return `slope:${feature}`;
}

export function weightsText(file: WeightsFile): string {
  return `${JSON.stringify(file, null, 1)}\n`;
}

/** The fit options a command line may override (train.ts and cross-validate.ts share them). */
export const FIT_ARGS = {
  epochs: { type: 'string' }, rate: { type: 'string' }, 'profile-rate': { type: 'string' }, l2: { type: 'string' },
  'profile-l2': { type: 'string' }, mix: { type: 'string' }, seed: { type: 'string' }, factors: { type: 'string' }, balance: { type: 'string' }, members: { type: 'string' },
  smooth: { type: 'string' }, 'smooth-length': { type: 'string' }, direct: { type: 'string' },
  'subject-heads': { type: 'string' }, 'subject-weight': { type: 'string' }, 'subject-rate': { type: 'string' }, 'subject-other': { type: 'string' }, bits: { type: 'string' },
} as const;

export function fitOptionsFrom(values: Partial<Record<keyof typeof FIT_ARGS, string>>): FitOptions {
  const num = (v: string | undefined, d: number): number => (v === undefined ? d : Number(v));
  return {
    seed: num(values.seed, SHIPPED.seed), epochs: num(values.epochs, SHIPPED.epochs), rate: num(values.rate, SHIPPED.rate),
    profileRate: num(values['profile-rate'], SHIPPED.profileRate), l2: num(values.l2, SHIPPED.l2),
    profileL2: num(values['profile-l2'], SHIPPED.profileL2), mixWeight: num(values.mix, SHIPPED.mixWeight),
    factors: num(values.factors, SHIPPED.factors),
    balance: num(values.balance, SHIPPED.balance),
    members: num(values.members, SHIPPED.members),
    smooth: num(values.smooth, SHIPPED.smooth),
    smoothLength: num(values['smooth-length'], SHIPPED.smoothLength),
    direct: values.direct === undefined ? SHIPPED.direct : directPreset(values.direct),
    subjectHeads: num(values['subject-heads'], SHIPPED.subjectHeads),
    subjectWeight: num(values['subject-weight'], SHIPPED.subjectWeight),
    subjectRate: num(values['subject-rate'], SHIPPED.subjectRate),
    subjectOther: num(values['subject-other'], SHIPPED.subjectOther),
    bits: num(values.bits, SHIPPED.bits),
  };
}

/** `--direct` names structural features (comma-separated) or a preset: chars, problem (their soft bins), log. */
function directPreset(v: string): string[] {
  if (v === '' || v === 'none') return [];
  const bins = (p: string): string[] => ['64', '128', '256', '512', '1k', '2k', '4k', '8k'].map((b) => `${p}-${b}`);
  return v.split(',').flatMap((x) => (x === 'chars' ? bins('chars') : x === 'problem' ? bins('problem-chars') : x === 'log' ? ['log-chars'] : [x]));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' }, dev: { type: 'boolean' }, ...FIT_ARGS } });
  const options = fitOptionsFrom(values);
  const started = Date.now();
  const { file } = train(options);
  const out = values.out ?? join(REPO_ROOT, 'lib/router/weights.json');
  writeFileSync(out, weightsText(file));
  // the compiled copy too, so dist/ (what bin/gateway runs) has the weights without a rebuild
  if (values.out === undefined) writeFileSync(join(REPO_ROOT, "dist/lib/router/weights.json"), weightsText(file));
  process.stderr.write(`wrote ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s (train loss ${String(file.training.trainLoss)})\n`);
  if (values.dev) {
    const { devReport } = await import('./dev-report.js');
    process.stdout.write(devReport(out));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
