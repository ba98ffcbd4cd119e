// Two gateways' complexity heuristics, re-implemented from their public documentation (no code of
// theirs read or copied; the keyword lists are ours, written for the categories the docs name):
//
// LiteLLM `auto_router/complexity_router` (litellm/router_strategy/complexity_router/README.md):
// a weighted sum over 7 dimensions of the request — tokenCount 0.10 (short < 15 tokens → 0, long
// > 400 → 1), codePresence 0.30, reasoningMarkers 0.25, technicalTerms 0.25, simpleIndicators −0.05,
// multiStepPatterns 0.03, questionComplexity 0.02 — mapped to tiers SIMPLE < 0.15 ≤ MEDIUM < 0.35 ≤
// COMPLEX < 0.60 ≤ REASONING, each tier configured to a model.
//
// Bifrost's lexical complexity analyzer (docs.getbifrost.ai features/governance/complexity-router,
// the keyword scorer later retired): 5 dimensions over the last user message — code 30 %, reasoning
// markers 25 %, technical terms 25 %, token count 10 %, simple indicators −5 % (a dampener, reduced to
// nearly nothing for prompts of ≥ 30 words or with ≥ 2 other strong signals); the system prompt adds
// its code/technical/simple signals at 25 %; in a conversation the score is max(last message,
// 60 % last + 40 % recency-weighted history of the last 10 user turns); a floor for prompts asking
// for broad, exhaustive output; reasoning keywords can force the REASONING tier (we force it on two
// or more). Its default boundaries are not given in the docs: LiteLLM's are used.
import type { RouterInput } from '../../lib/router/router-api.js';

const CODE = ['function', 'class ', 'def ', 'return', 'import ', 'const ', 'var ', 'let ', '()', '{', '};', '=>', 'debug', 'compile', 'stack trace', 'exception', 'refactor', 'python', 'javascript', 'typescript', 'java', 'sql', 'regex', 'api', 'bug', '```', 'code', 'program', 'algorithm', 'array', 'string'];
const REASONING = ['step by step', 'think through', 'reason', 'prove', 'proof', 'derive', 'explain why', 'analyze', 'analyse', 'compare', 'evaluate', 'justify', 'implication', 'deduce', 'therefore', 'logic', 'infer', 'trade-off', 'pros and cons'];
const TECHNICAL = ['architecture', 'distributed', 'kubernetes', 'database', 'latency', 'throughput', 'scalab', 'infrastructure', 'protocol', 'encryption', 'optimi', 'theorem', 'equation', 'integral', 'derivative', 'matrix', 'probability', 'statistic', 'quantum', 'molecule', 'enzyme', 'economic', 'jurisdiction', 'statute', 'polynomial', 'hypothesis'];
const SIMPLE = ['what is', 'define', 'who is', 'when did', 'hello', 'hi ', 'thanks', 'thank you', 'how are you', 'translate', 'spell'];
const MULTI_STEP = ['first', 'then', 'after that', 'finally', 'next,', '1.', '2.', '3.', 'step 1', 'step 2'];
const EXHAUSTIVE = ['list every', 'list all', 'explain each', 'every single', 'comprehensive', 'exhaustive', 'in detail', 'all of the'];

export type Tier = 0 | 1 | 2 | 3; // SIMPLE, MEDIUM, COMPLEX, REASONING
export const BOUNDARIES = [0.15, 0.35, 0.6] as const;

function hits(text: string, words: readonly string[]): number {
  let n = 0;
  for (const w of words) if (text.includes(w)) n++;
  return n;
}

/** A dimension's signal in [0, 1] from keyword hits: one hit is weak, three or more are full. */
const signal = (n: number): number => Math.min(1, n / 3);

function tokenScore(tokens: number): number {
  if (tokens < 15) return 0;
  if (tokens > 400) return 1;
  return (tokens - 15) / (400 - 15);
}

function lastUser(input: RouterInput): string {
  for (let i = input.turns.length - 1; i >= 0; i--) if (input.turns[i]!.role === 'user') return input.turns[i]!.text.toLowerCase();
  return '';
}

export function litellmScore(input: RouterInput): number {
  const text = input.turns.filter((t) => t.role === 'user' || t.role === 'system').map((t) => t.text.toLowerCase()).join('\n');
  const questions = (text.match(/\?/g) ?? []).length;
  return (
    0.1 * tokenScore(text.length / 4) +
    0.3 * signal(hits(text, CODE)) +
    0.25 * signal(hits(text, REASONING)) +
    0.25 * signal(hits(text, TECHNICAL)) -
    0.05 * signal(hits(text, SIMPLE)) +
    0.03 * signal(hits(text, MULTI_STEP)) +
    0.02 * (questions > 1 ? 1 : 0)
  );
}

function bifrostMessage(text: string, system: string): { score: number; reasoningHits: number } {
  const words = text.split(/\s+/).filter(Boolean).length;
  const code = signal(hits(text, CODE) + 0.25 * hits(system, CODE));
  const reasoningHits = hits(text, REASONING);
  const technical = signal(hits(text, TECHNICAL) + 0.25 * hits(system, TECHNICAL));
  const strong = [code, signal(reasoningHits), technical].filter((s) => s >= 0.66).length;
  const dampen = words >= 30 || strong >= 2 ? 0.05 : 1;
  const simple = signal(hits(text, SIMPLE) + 0.25 * hits(system, SIMPLE)) * dampen;
  const score = 0.3 * code + 0.25 * signal(reasoningHits) + 0.25 * technical + 0.1 * tokenScore(text.length / 4) - 0.05 * simple;
  return { score: Math.max(0, Math.min(1, score)), reasoningHits };
}

/** Bifrost's score and whether its reasoning override fires. */
export function bifrostScore(input: RouterInput): { score: number; reasoning: boolean } {
  const system = input.turns.filter((t) => t.role === 'system').map((t) => t.text.toLowerCase()).join('\n');
  const users = input.turns.filter((t) => t.role === 'user').slice(-11).map((t) => t.text.toLowerCase());
  const last = users.pop() ?? lastUser(input);
  const current = bifrostMessage(last, system);
  let score = current.score;
  if (users.length > 0) {
    // recency-weighted history: the k-th most recent earlier turn weighs 1/k
    let sum = 0, weights = 0;
    users.forEach((u, i) => {
      const w = 1 / (users.length - i);
      sum += w * bifrostMessage(u, system).score;
      weights += w;
    });
    score = Math.max(score, 0.6 * score + 0.4 * (sum / weights));
  }
  if (hits(last, EXHAUSTIVE) > 0) score = Math.max(score, BOUNDARIES[0]);
  return { score, reasoning: current.reasoningHits >= 2 };
}

/** The tier of a score, with the boundaries scaled by `knob` (1 = the documented defaults; 0 = all REASONING). */
export function tierOf(score: number, knob: number): Tier {
  if (knob === 0) return 3;
  if (score < BOUNDARIES[0] * knob) return 0;
  if (score < BOUNDARIES[1] * knob) return 1;
  if (score < BOUNDARIES[2] * knob) return 2;
  return 3;
}
