// reserve-credits: RoutedRequest → RoutedRequest (unchanged). Before any provider work: the key's
// rate limits admit the request (429 before anything is held), then the ledger holds the request's
// maximum cost against the organization's balance and every spend cap (402), and the reservation is
// put on the context for `settle` to end. The limit headers go on every answer, in the client
// dialect's names.
import type { DialectName, RoutedRequest } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import { GatewayError } from '../lib/errors.js';
import { estimateUnits, tokenEstimate } from '../lib/pricing.js';
import type { RateDecision } from '../lib/rate-limit.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import { rateLimitHeaderNames, type RateLimitHeaderNames } from '../lib/dialects/index.js';

function formatReset(seconds: number, style: RateLimitHeaderNames['reset'], now: number): string {
  if (style === 'instant') return new Date(now + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m${seconds % 60}s` : `${seconds}s`;
}

/** A decision's limit headers in the dialect's names (none for an unlimited key). */
export function rateLimitHeaders(dialect: DialectName, d: RateDecision, now = Date.now()): Record<string, string> {
  const names = rateLimitHeaderNames[dialect]; // the client dialect's names (lib/dialects/<d>/index.ts)
  const out: Record<string, string> = {};
  if (d.limit !== null && d.remaining !== null && d.resetSeconds !== null) {
    out[names.requestsLimit] = String(d.limit);
    out[names.requestsRemaining] = String(d.remaining);
    out[names.requestsReset] = formatReset(d.resetSeconds, names.reset, now);
  }
  if (d.tokens !== null) {
    out[names.tokensLimit] = String(d.tokens.limit);
    out[names.tokensRemaining] = String(d.tokens.remaining);
    out[names.tokensReset] = formatReset(d.tokens.resetSeconds, names.reset, now);
  }
  return out;
}

export interface ReserveCreditsOptions {
  /**
   * An upper bound of the audio seconds a per-minute-priced request will be billed for
   * (transcriptions); default none.
   */
  audioSecondsBound?: (routed: RoutedRequest, ctx: RequestContext) => number | null;
}

/** The routed request, once its hold committed (module-level: no generator function per request). */
async function* afterHold(held: Promise<void>, routed: RoutedRequest): AsyncGenerator<RoutedRequest> {
  await held;
  yield routed;
}

export function reserveCredits(opts: ReserveCreditsOptions = {}): StageFactory<RoutedRequest, RoutedRequest> {
  return (): Stage<RoutedRequest, RoutedRequest> => {
    /** the hold being committed (batched with the other holds and settles of this event-loop turn) */
    let pending: Promise<unknown> | null = null;
    return {
      name: 'reserve-credits',
      step(routed, ctx) {
        if (ctx.reservation !== null) return [routed];
        const key = ctx.key;
        if (key === null) throw new GatewayError('GW_ERR_INTERNAL', 'reserve-credits ran without an authenticated key.');
        const { catalog, rateLimiter, store } = ctx.services;
        const model = catalog.get(routed.modelId);
        if (model === undefined) throw new GatewayError('GW_ERR_INTERNAL', `reserve-credits: model ${routed.modelId} is not in the catalog.`);
        const tokens = tokenEstimate(model, routed);
        const decision = rateLimiter.admit(key, tokens, (d) => rateLimitHeaders(ctx.dialect, d));
        Object.assign(ctx.response.headers, rateLimitHeaders(ctx.dialect, decision));
        const amount = estimateUnits(model, routed, opts.audioSecondsBound?.(routed, ctx) ?? 0);
        // The hold lands on the context as soon as it commits, whether or not the pipeline is still
        // waiting for it (a client gone meanwhile): `close` waits for it, so settle always sees it.
        const held = store.ledger.reserveSoon({ requestId: ctx.reqId, key, amount }).then(
          (reservation) => {
            ctx.reservation = reservation;
          },
          (err: unknown) => {
            // nothing will run: give the counted tokens back
            rateLimiter.record(key, 0, decision.estimatedTokens);
            throw err;
          },
        );
        pending = held.catch(() => undefined);
        return afterHold(held, routed);
      },
      async close() {
        await pending;
      },
    };
  };
}
