// `gateway router choose --models MODELS.json [--target Q]` (decisions.md §15): the model
// `gateway-auto`'s learned router would choose for each prompt, offline, with no provider call.
// Reads JSON lines {"id", "prompt"} on standard input (a prompt is a string or an array of chat
// turns) and writes one line {"id", "model", "ms"} per prompt, ms being the decision time (encoding
// and decision). MODELS.json is the `models.json` format of shared/router-data: each model's
// `name`, prices (`input_usd_per_mtok` / `output_usd_per_mtok`, else `reference_price`), and
// optionally `quality` (a QualityProfile). A prompt is priced as the evaluation prices it
// (characters / 4 input tokens, 300 output tokens per user turn).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { loadRouter, defaultQualityProfile, type LearnedRouterApi } from '../router/index.js';
import { promptCost, promptInput, type DataPrompt, type Price } from '../router/prompt-input.js';
import type { QualityProfile, RouterCandidate } from '../router/router-api.js';

export const ROUTER_USAGE = `usage:
  gateway router choose --models MODELS.json [--target Q]
      JSON lines {"id","prompt"} on stdin → {"id","model","ms"} on stdout; Q (default 0.95) is the
      fraction of the best candidate's predicted quality the choice must keep`;

class UsageError extends Error {}

interface ModelEntry {
  name?: unknown;
  input_usd_per_mtok?: unknown;
  output_usd_per_mtok?: unknown;
  reference_price?: { input_usd_per_mtok?: unknown; output_usd_per_mtok?: unknown };
  train_mean_score?: unknown;
  quality?: QualityProfile;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);

/**
 * A model's profile: its own `quality`, else the one training learned for that name, else the
 * documented default of a built-in catalog id, else one read off its mean score (`train_mean_score`:
 * ability = its logit, which is where the learned abilities sit for the data's models).
 */
export function profileOf(m: ModelEntry, router: LearnedRouterApi): QualityProfile | null {
  const name = String(m.name);
  if (m.quality !== undefined && typeof m.quality.ability === 'number') return m.quality;
  const known = router.learned[name] ?? defaultQualityProfile(name);
  if (known !== undefined) return known;
  const mean = num(m.train_mean_score);
  if (mean !== null && mean > 0 && mean < 1) return { ability: Math.log(mean / (1 - mean)) };
  return null;
}

export interface ModelChoice {
  name: string;
  price: Price;
  quality: QualityProfile;
}

export function readModelsFile(path: string, router: LearnedRouterApi): ModelChoice[] {
  let parsed: { models?: unknown };
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as { models?: unknown };
  } catch (e) {
    throw new UsageError(`--models ${path}: ${(e as Error).message}`);
  }
  if (!Array.isArray(parsed.models) || parsed.models.length === 0) throw new UsageError(`--models ${path}: no "models" array`);
  return (parsed.models as ModelEntry[]).map((m) => {
    if (typeof m.name !== 'string') throw new UsageError(`--models ${path}: a model without a "name"`);
    const input = num(m.input_usd_per_mtok) ?? num(m.reference_price?.input_usd_per_mtok);
    const output = num(m.output_usd_per_mtok) ?? num(m.reference_price?.output_usd_per_mtok);
    if (input === null || output === null) throw new UsageError(`--models ${path}: model "${m.name}" has no price (input_usd_per_mtok / output_usd_per_mtok or reference_price)`);
    const quality = profileOf(m, router);
    if (quality === null) throw new UsageError(`--models ${path}: model "${m.name}" has no quality profile: add "quality": {"ability": N, "skills": {...}} or "train_mean_score"`);
    return { name: m.name, price: { input, output }, quality };
  });
}

function parseFlags(args: readonly string[]): { models: string; target: number } {
  let models: string | undefined;
  let target = 0.95;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (name !== '--models' && name !== '--target') throw new UsageError(`unknown option ${arg}`);
    if (value === undefined || value === '') throw new UsageError(`${name} needs a value`);
    if (name === '--models') models = value;
    else {
      target = Number(value);
      if (!/^\d*\.?\d+$/.test(value) || target <= 0 || target > 1) throw new UsageError(`--target must be a number in (0, 1], got "${value}"`);
    }
  }
  if (models === undefined) throw new UsageError('router choose needs --models MODELS.json');
  return { models, target };
}

/** Runs `router <command> ...` (argv after `router`); returns the exit code (2: bad usage or input). */
export async function runRouterCli(argv: string[], input: NodeJS.ReadableStream = process.stdin, out = (s: string) => void process.stdout.write(s), err = (s: string) => void process.stderr.write(s)): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    err(`${ROUTER_USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  try {
    if (command !== 'choose') throw new UsageError(`unknown command "${command}"`);
    const flags = parseFlags(rest);
    const router = loadRouter();
    const models = readModelsFile(flags.models, router);
    await choose(router, models, flags.target, input, out);
    return 0;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`gateway router: ${e.message}\n${ROUTER_USAGE}\n`);
    return 2;
  }
}

async function choose(router: LearnedRouterApi, models: readonly ModelChoice[], target: number, input: NodeJS.ReadableStream, out: (s: string) => void): Promise<void> {
  const candidates: RouterCandidate[] = models.map((m) => ({ id: m.name, quality: m.quality, cost: 0 }));
  // warm the code up first, so `ms` is the decision time a running gateway sees, not the JIT's
  const warm = promptInput('Warm-up: what is 17 + 25? Explain step by step.\nA. 42\nB. 32');
  for (let i = 0; i < 300; i++) router.decide(warm, candidates, target);
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    n++;
    if (line.trim() === '') continue;
    let row: { id?: unknown; prompt?: unknown };
    try {
      row = JSON.parse(line) as typeof row;
    } catch (e) {
      throw new UsageError(`stdin line ${n}: ${(e as Error).message}`);
    }
    if (typeof row.prompt !== 'string' && !Array.isArray(row.prompt)) throw new UsageError(`stdin line ${n}: "prompt" must be a string or an array of turns`);
    const started = process.hrtime.bigint();
    const req = promptInput(row.prompt as DataPrompt);
    const priced = candidates.map((c, i) => ({ ...c, cost: promptCost(req, models[i]!.price) }));
    const decision = router.decide(req, priced, target);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    out(`${JSON.stringify({ id: row.id ?? null, model: decision.model, ms: Number(ms.toFixed(4)) })}\n`);
  }
}
