// Reads the router data (../shared/router-data/ beside the repository, never copied into it):
// the normalized JSON lines of one split and a dataset's models.json. `test` is read only by the
// evaluation's final report (bench/router/run.ts --split test); training asks for train and dev.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promptInput, type DataPrompt, type Price } from '../../lib/router/prompt-input.js';
import type { RouterInput } from '../../lib/router/router-api.js';

export const DATASETS = ['routellm-mmlu', 'routellm-gsm8k', 'routellm-mtbench', 'llmrouter-dcrouter'] as const;
export type Dataset = (typeof DATASETS)[number];
export type Split = 'train' | 'dev' | 'test';

/** The repository root (this file is dist/bench/router/data.js once compiled). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export function dataDir(): string {
  return process.env.GATEWAY_ROUTER_DATA ?? resolve(REPO_ROOT, '../shared/router-data');
}

export interface DataModel {
  name: string;
  price: Price;
  trainMean: number;
}

export interface DataItem {
  id: string;
  prompt: DataPrompt;
  input: RouterInput;
  domain: string | undefined;
  scores: Record<string, number>;
}

export function readModels(dataset: Dataset): DataModel[] {
  const file = JSON.parse(readFileSync(join(dataDir(), dataset, 'models.json'), 'utf8')) as {
    models: { name: string; input_usd_per_mtok: number | null; output_usd_per_mtok: number | null; reference_price?: { input_usd_per_mtok: number; output_usd_per_mtok: number }; train_mean_score: number }[];
  };
  return file.models.map((m) => ({
    name: m.name,
    price: {
      input: m.input_usd_per_mtok ?? m.reference_price!.input_usd_per_mtok,
      output: m.output_usd_per_mtok ?? m.reference_price!.output_usd_per_mtok,
    },
    trainMean: m.train_mean_score,
  }));
}

export function readSplit(dataset: Dataset, split: Split): DataItem[] {
  const text = readFileSync(join(dataDir(), dataset, `${split}.jsonl`), 'utf8');
  const out: DataItem[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { id: string; prompt: DataPrompt; domain?: string; scores: Record<string, number> };
    out.push({ id: row.id, prompt: row.prompt, input: promptInput(row.prompt), domain: row.domain, scores: row.scores });
  }
  return out;
}

/** The evaluation's strongest model: the highest mean score on train (models.json). */
export function strongest(models: readonly DataModel[]): DataModel {
  return models.reduce((a, b) => (b.trainMean > a.trainMean ? b : a));
}
