// The expected cost of one request on one candidate model, for gateway-auto's decision: price ×
// expected tokens, cache-aware. Estimates, never charges (settle bills the validated usage):
// - input: the request's token bound; the part a warm prompt cache holds (the session's previous
//   prompt, on the model that served it) at the cache-read rate, the rest at the input rate;
// - output: what the request lets the model write (`max_tokens`, the model's ceiling), expected from
//   the requested effort and, when the conversation has answers already, their length.
// Every candidate gets the same expected output (the same request), so only prices and the cache
// tell them apart. Amounts are USD.
import type { Pricing } from '../config.js';
import type { RouterEffort, RouterTurn } from './router-api.js';

/** Typical output tokens of an answer at each effort (reasoning included); no effort asked: a plain answer. */
const OUTPUT_BY_EFFORT: Readonly<Record<RouterEffort | 'unset', number>> = {
  unset: 600,
  none: 400,
  minimal: 500,
  low: 1000,
  medium: 2000,
  high: 4000,
  xhigh: 8000,
};
/** characters per token of ordinary text (the answers already in the conversation) */
const CHARS_PER_TOKEN = 4;

/** What the decision knows of the request before any model is chosen. */
export interface CostBasis {
  /** the gateway's bound on the request's input tokens */
  readonly inputTokens: number;
  /** expected output tokens (expectedOutputTokens), before each model's own ceiling */
  readonly outputTokens: number;
}

/**
 * Expected output tokens: the effort's typical answer, moved halfway toward the mean length of the
 * answers already in the conversation (a terse agent loop stays terse), within `max_tokens`.
 */
export function expectedOutputTokens(effort: RouterEffort | null, turns: readonly RouterTurn[], maxTokens: number | null): number {
  let expected = OUTPUT_BY_EFFORT[effort ?? 'unset'];
  let chars = 0;
  let answers = 0;
  for (const t of turns) {
    if (t.role !== 'assistant') continue;
    chars += t.text.length;
    answers++;
  }
  if (answers > 0) expected = Math.round((expected + chars / answers / CHARS_PER_TOKEN) / 2);
  return maxTokens === null ? expected : Math.min(expected, maxTokens);
}

/** USD per million tokens → USD per token */
const PER_TOKEN = 1 / 1_000_000;

/** The expected cost (USD) on a model with `pricing`, `cachedTokens` of the input read from a warm cache. */
export function expectedCost(pricing: Pricing, maxOutputTokens: number, basis: CostBasis, cachedTokens = 0): number {
  const input = pricing.input ?? 0;
  const cached = Math.min(cachedTokens, basis.inputTokens);
  const output = Math.min(basis.outputTokens, maxOutputTokens);
  return ((basis.inputTokens - cached) * input + cached * (pricing.cacheRead ?? input) + output * (pricing.output ?? 0)) * PER_TOKEN;
}

/** What leaving a model with `cachedTokens` in its warm cache costs: that input at the full rate instead. */
export function cacheLoss(pricing: Pricing, basis: CostBasis, cachedTokens: number): number {
  const input = pricing.input ?? 0;
  return Math.min(cachedTokens, basis.inputTokens) * (input - (pricing.cacheRead ?? input)) * PER_TOKEN;
}
