// Per-key rate limits (decisions §3): requests per minute and tokens per minute, in process.
//
// Each limit is a token bucket that holds one minute's allowance and refills continuously
// (limit / 60 s), so a key can never do more than its limit in any sliding minute plus what refilled
// inside it, with no burst at fixed window edges. `remaining` is what the bucket holds now, `reset`
// the time until it is full again, `retry-after` the time until the refused request would fit.
//
// Tokens are counted twice: at admission the request's estimate (input bound + output ceiling) is
// taken; when it ends, `record` gives back what was counted (the `reserved` note carries it) and takes
// the actual count. A web search loop the gateway runs (stages/search-loop.ts) makes further upstream
// calls: each is counted as it is sent, with its own estimate, and never refused (the answer has
// begun: the bucket may go into debt, and the key's next requests wait); at the end every round's
// tokens, summed, replace all the counts. A request needs
// min(estimate, limit) tokens in the bucket: one estimate larger than the whole limit still runs
// when the bucket is full (and leaves it in debt), instead of never.
//
// The interface is small so that shared backends implement it too: Redis (lib/limits/redis-rate-limit.ts,
// the same buckets in Lua) and the cluster primary (lib/cluster/ipc-rate-limit.ts, these buckets
// asked over IPC). A remote one answers `admit` with a promise; the in-process one answers at once.
import { errors } from './errors/index.js';
import type { KeyRecord } from './store/types.js';

export interface RateWindow {
  limit: number;
  remaining: number;
  /** seconds until the bucket is full again */
  resetSeconds: number;
}

export interface RateDecision {
  /** requests per minute: limit, remaining after this request, seconds until fully replenished (null: unlimited) */
  limit: number | null;
  remaining: number | null;
  resetSeconds: number | null;
  /** tokens per minute, when the key has a tpm limit */
  tokens: RateWindow | null;
  /** tokens counted at admission; give them back to `record` */
  estimatedTokens: number;
  /** set on a refusal: whole seconds until the request would fit (≥ 1) */
  retryAfterSeconds: number | null;
}

/** Builds extra response headers (dialect-specific limit headers) for a decision. */
export type RateHeaders = (decision: RateDecision) => Record<string, string>;

export interface RateLimiter {
  /**
   * Count one request for the key; throws GatewayError GW_ERR_RATE_LIMITED with `retry-after` (and
   * `headers(decision)`) when over a limit. Nothing is counted for a refused request.
   */
  admit(key: KeyRecord, estimatedTokens: number, headers?: RateHeaders): RateDecision | Promise<RateDecision>;
  /** the request ended: replace its estimate with the tokens actually used (a remote limiter sends it and does not wait) */
  record(key: KeyRecord, tokens: number, estimatedTokens?: number): void;
}

/** What a bucket decided, before it becomes a decision or a refusal (shared by every backend). */
export interface BucketVerdict {
  decision: RateDecision;
  /** the limits passed, on a refusal (empty when admitted) */
  reasons: string[];
}

/** A verdict as `admit` answers it: the decision, or the 429 with its headers. */
export function settleVerdict(key: Pick<KeyRecord, 'id'>, v: BucketVerdict, headers?: RateHeaders): RateDecision {
  if (v.reasons.length === 0) return v.decision;
  throw errors.rateLimited(key.id, v.reasons, v.decision.retryAfterSeconds!, headers?.(v.decision));
}

/**
 * Bucket levels are kept in integer "unit-milliseconds" (one request or token = 60,000): a limit of
 * L per minute refills exactly L per millisecond, so levels stay exact integers with no drift.
 */
interface Bucket {
  requests: number;
  tokens: number;
  at: number;
}

export const MINUTE_MS = 60_000;

function refill(level: number, limit: number, elapsedMs: number): number {
  return Math.min(limit * MINUTE_MS, level + elapsedMs * limit);
}

/** whole seconds until `level` holds `need` units at `limit` per minute (≥ 1) */
function secondsUntil(level: number, need: number, limit: number): number {
  return Math.max(1, Math.ceil((need * MINUTE_MS - level) / limit / 1000));
}

function secondsToFull(level: number, limit: number): number {
  return Math.max(0, Math.ceil((limit * MINUTE_MS - level) / limit / 1000));
}

function units(level: number): number {
  return Math.max(0, Math.floor(level / MINUTE_MS));
}

/** The decision for bucket levels `b` (unit-milliseconds). */
export function decisionOf(b: { requests: number; tokens: number }, rpm: number | null, tpm: number | null, estimatedTokens: number, retryAfter: number | null): RateDecision {
  return {
    limit: rpm,
    remaining: rpm === null ? null : units(b.requests),
    resetSeconds: rpm === null ? null : secondsToFull(b.requests, rpm),
    tokens: tpm === null ? null : { limit: tpm, remaining: units(b.tokens), resetSeconds: secondsToFull(b.tokens, tpm) },
    estimatedTokens,
    retryAfterSeconds: retryAfter,
  };
}

/**
 * Whether levels `b` (refilled to now) admit one request of `estimate` tokens: the refusal's reasons
 * and retry-after, or no reasons (the caller then takes the request from the bucket).
 */
export function judge(b: { requests: number; tokens: number }, rpm: number | null, tpm: number | null, estimate: number): BucketVerdict {
  let retryAfter = 0;
  const reasons: string[] = [];
  if (rpm !== null && b.requests < MINUTE_MS) {
    retryAfter = Math.max(retryAfter, secondsUntil(b.requests, 1, rpm));
    reasons.push(`${rpm} requests per minute`);
  }
  const need = tpm === null ? 0 : Math.min(estimate, tpm);
  if (tpm !== null && b.tokens < need * MINUTE_MS) {
    retryAfter = Math.max(retryAfter, secondsUntil(b.tokens, need, tpm));
    reasons.push(`${tpm} tokens per minute (this request may use up to ${estimate})`);
  }
  return { decision: decisionOf(b, rpm, tpm, estimate, reasons.length > 0 ? retryAfter : null), reasons };
}

export interface InProcessRateLimiterOptions {
  /** clock in milliseconds (tests inject one) */
  now?: () => number;
}

export class InProcessRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;

  constructor(opts: InProcessRateLimiterOptions = {}) {
    this.now = opts.now ?? Date.now;
  }

  /** The key's bucket, refilled to now; created full. */
  private bucket(key: Pick<KeyRecord, 'id'>, rpm: number | null, tpm: number | null): Bucket {
    const now = this.now();
    let b = this.buckets.get(key.id);
    if (b === undefined) {
      b = { requests: (rpm ?? 0) * MINUTE_MS, tokens: (tpm ?? 0) * MINUTE_MS, at: now };
      this.buckets.set(key.id, b);
      return b;
    }
    const elapsed = Math.max(0, now - b.at);
    if (rpm !== null) b.requests = refill(b.requests, rpm, elapsed);
    if (tpm !== null) b.tokens = refill(b.tokens, tpm, elapsed);
    b.at = now;
    return b;
  }

  admit(key: KeyRecord, estimatedTokens: number, headers?: RateHeaders): RateDecision {
    return settleVerdict(key, this.verdict(key, estimatedTokens), headers);
  }

  /** admit without throwing: what the cluster primary answers a worker (lib/cluster/) */
  verdict(key: Pick<KeyRecord, 'id' | 'rateLimit'>, estimatedTokens: number): BucketVerdict {
    const { rpm, tpm } = key.rateLimit;
    const estimate = Math.max(0, Math.ceil(estimatedTokens));
    if (rpm === null && tpm === null) return { decision: decisionOf({ requests: 0, tokens: 0 }, null, null, estimate, null), reasons: [] };
    const b = this.bucket(key, rpm, tpm);
    const v = judge(b, rpm, tpm, estimate);
    if (v.reasons.length === 0) {
      if (rpm !== null) b.requests -= MINUTE_MS;
      if (tpm !== null) b.tokens -= estimate * MINUTE_MS;
      v.decision = decisionOf(b, rpm, tpm, estimate, null);
    }
    return v;
  }

  record(key: Pick<KeyRecord, 'id' | 'rateLimit'>, tokens: number, estimatedTokens = 0): void {
    const { rpm, tpm } = key.rateLimit;
    if (tpm === null) return;
    const b = this.bucket(key, rpm, tpm);
    const actual = tokens > 0 ? Math.ceil(tokens) : 0;
    b.tokens = Math.min(tpm * MINUTE_MS, b.tokens + (estimatedTokens - actual) * MINUTE_MS);
  }
}
