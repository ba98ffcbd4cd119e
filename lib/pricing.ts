// Prices and costs in integer arithmetic. A model's prices are precomputed once as integer
// pico-dollars (1e-12 USD) per token; a cost is summed exactly in BigInt pico-dollars and rounded
// once, half up, to the ledger's unit (1 unit = 1e-9 USD, see lib/store/types.ts).
//
// Rules (decisions §7):
// - cost = input × input price + output × output price + cache reads × cacheRead price + cache
//   writes × cacheWrite price + successful web searches × webSearch price (+ per-minute audio).
// - `Usage.input` excludes cache reads and writes, so every token is counted once; reasoning tokens
//   are inside `output` and billed at the output price (never added again).
// - A model without `cacheRead` / `cacheWrite` prices bills those tokens at its input price.
// - `webSearch` is USD per search (not per million); default $0.01, the spec's Responses rule.
// - `perMinute` is USD per minute of audio, billed on top of any token prices the model lists.
// - A reservation is an upper bound: every input token at the highest input-side price, the output
//   ceiling at the output price, every allowed web search; rounded up, never half-up.
import type { CatalogModel } from './catalog.js';
import type { Pricing } from './config.js';
import type { RoutedRequest, SearchPlan, Usage } from './chunks.js';
import { UNITS_PER_USD } from './store/types.js';

/** Default price of one successful hosted web search, in USD. */
export const DEFAULT_WEB_SEARCH_USD = 0.01;

const PICO_PER_UNIT = 1000n;
const MS_PER_MINUTE = 60_000n;

/** A model's prices as integer pico-dollars (per token, per search, per minute of audio). */
export interface ModelPrice {
  input: bigint;
  output: bigint;
  cacheRead: bigint;
  cacheWrite: bigint;
  webSearch: bigint;
  perMinute: bigint;
  /** the highest price an input token can be billed at (input, cache read or cache write) */
  inputBound: bigint;
}

/** USD per million tokens → pico-dollars per token (exact for prices with up to 6 decimals). */
function perMillionToPico(usdPerMillion: number | undefined): bigint {
  return usdPerMillion === undefined ? 0n : BigInt(Math.round(usdPerMillion * 1e6));
}

/** USD per item (a search, a minute) → pico-dollars (exact for prices with up to 6 decimals). */
function usdToPico(usd: number): bigint {
  return BigInt(Math.round(usd * 1e12));
}

export function pricingFromConfig(p: Pricing): ModelPrice {
  const input = perMillionToPico(p.input);
  const cacheRead = p.cacheRead === undefined ? input : perMillionToPico(p.cacheRead);
  const cacheWrite = p.cacheWrite === undefined ? input : perMillionToPico(p.cacheWrite);
  let inputBound = input;
  if (cacheRead > inputBound) inputBound = cacheRead;
  if (cacheWrite > inputBound) inputBound = cacheWrite;
  return {
    input,
    output: perMillionToPico(p.output),
    cacheRead,
    cacheWrite,
    webSearch: usdToPico(p.webSearch ?? DEFAULT_WEB_SEARCH_USD),
    perMinute: p.perMinute === undefined ? 0n : usdToPico(p.perMinute),
    inputBound,
  };
}

const cache = new WeakMap<CatalogModel, ModelPrice>();

/** The model's prices, computed once per catalog model. */
export function priceOf(model: CatalogModel): ModelPrice {
  let price = cache.get(model);
  if (price === undefined) {
    price = pricingFromConfig(model.pricing);
    cache.set(model, price);
  }
  return price;
}

/** A token count as BigInt; counts are validated integers, anything else is treated defensively. */
function count(n: number): bigint {
  if (!(n > 0)) return 0n;
  return BigInt(Number.isSafeInteger(n) ? n : Math.round(Math.min(n, Number.MAX_SAFE_INTEGER)));
}

/** num / den rounded half up (both non-negative, den even). */
function divHalfUp(num: bigint, den: bigint): number {
  return Number((num + den / 2n) / den);
}

/** num / den rounded up: reservations must be upper bounds. */
function divUp(num: bigint, den: bigint): number {
  return Number((num + den - 1n) / den);
}

function tokenPico(price: ModelPrice, usage: Usage): bigint {
  return (
    count(usage.input) * price.input +
    count(usage.output) * price.output +
    count(usage.cacheRead) * price.cacheRead +
    count(usage.cacheWrite) * price.cacheWrite +
    count(usage.webSearches) * price.webSearch
  );
}

/** per-minute price × whole milliseconds of audio: pico-dollars × 60,000 */
function audioPicoMs(price: ModelPrice, seconds: number | null): bigint {
  if (seconds === null || price.perMinute === 0n || !(seconds > 0)) return 0n;
  return price.perMinute * count(Math.round(seconds * 1000));
}

/** The cost of `usage` in units: exact integer sum, rounded half up once. */
export function costUnits(price: ModelPrice, usage: Usage): number {
  return divHalfUp(tokenPico(price, usage), PICO_PER_UNIT);
}

/** The per-minute cost of `seconds` of audio in units (zero when the model has no `perMinute` price). */
export function costForSeconds(price: ModelPrice, seconds: number): number {
  return divHalfUp(audioPicoMs(price, seconds), MS_PER_MINUTE * PICO_PER_UNIT);
}

/**
 * Token cost plus per-minute audio cost, summed exactly before the single rounding: what settle
 * charges and what the encoders report.
 */
export function totalCostUnits(price: ModelPrice, usage: Usage | null, audioSeconds: number | null): number {
  const tokens = usage ? tokenPico(price, usage) : 0n;
  return divHalfUp(tokens * MS_PER_MINUTE + audioPicoMs(price, audioSeconds), MS_PER_MINUTE * PICO_PER_UNIT);
}

/** The request's output ceiling: the (capped) max_tokens, or the model's maximum output. */
export function outputCeiling(model: CatalogModel, routed: RoutedRequest): number {
  return routed.maxTokens ?? model.maxOutputTokens;
}

/** Tokens a request may use at most: what a tokens-per-minute limit counts at admission. */
export function tokenEstimate(model: CatalogModel, routed: RoutedRequest): number {
  return routed.request.inputTokenBound + outputCeiling(model, routed);
}

/**
 * The reservation for a request, in units: input bound × the highest input-side price + output
 * ceiling × output price + allowed hosted-tool uses × web-search price (+ audio seconds bound ×
 * per-minute price), rounded up.
 */
export function estimateUnits(model: CatalogModel, routed: RoutedRequest, audioSecondsBound = 0): number {
  const price = priceOf(model);
  const pico =
    routed.search !== undefined
      ? searchLoopPico(price, routed.search, count(routed.request.inputTokenBound), count(outputCeiling(model, routed)))
      : count(routed.request.inputTokenBound) * price.inputBound +
        count(outputCeiling(model, routed)) * price.output +
        count(routed.request.hostedToolUses) * price.webSearch;
  return divUp(pico * MS_PER_MINUTE + audioPicoMs(price, audioSecondsBound), MS_PER_MINUTE * PICO_PER_UNIT);
}

/**
 * A search loop (decisions §11) at most: every allowed round reads the request, every search's
 * results and the output of the rounds before it, and writes up to the output ceiling; every allowed
 * search is charged.
 */
function searchLoopPico(price: ModelPrice, plan: SearchPlan, input: bigint, output: bigint): bigint {
  const rounds = count(plan.maxRounds);
  const replayed = (output * rounds * (rounds - 1n)) / 2n;
  return (rounds * (input + count(plan.feedTokens)) + replayed) * price.inputBound + rounds * output * price.output + count(plan.maxSearches) * price.webSearch;
}

/** Units → USD as a number, for JSON reports (never for arithmetic). */
export function unitsToUsd(units: number): number {
  return units / UNITS_PER_USD;
}

/** Units → `$1.50`, `$0.000125`: exact, at least two decimals, trailing zeros trimmed. */
export function formatUsd(units: number): string {
  const sign = units < 0 ? '-' : '';
  const abs = BigInt(Math.abs(Math.trunc(units)));
  const whole = abs / BigInt(UNITS_PER_USD);
  let frac = (abs % BigInt(UNITS_PER_USD)).toString().padStart(9, '0').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${sign}$${whole}.${frac}`;
}

/** A decimal USD amount as written (`12.5`, `-0.000000001`) → exact units; null when malformed. */
export function parseUsd(text: string): number | null {
  const m = /^(-?)(\d+)(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!m) return null;
  const units = BigInt(m[2]!) * BigInt(UNITS_PER_USD) + BigInt((m[3] ?? '').padEnd(9, '0'));
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  return m[1] === '-' ? -Number(units) : Number(units);
}
