// settle's charge: what an ended request is charged, its usage record, and the one end of its
// reservation in the ledger (settle.ts decides when; the rules are in settle.ts's header).
import type { RoutedRequest, Usage } from '../lib/chunks.js';
import type { EndpointName, RequestContext } from '../lib/context.js';
import { GatewayError } from '../lib/errors.js';
import { costOfUsage, tokensUsed } from '../lib/billing/cost.js';
import type { Outcome, Upstream } from '../lib/notes.js';
import { unitsToUsd } from '../lib/pricing.js';
import type { Reservation, UsageRecord } from '../lib/store/types.js';
import { preciseNow, type StageMarks } from '../lib/tracing/tracer-api.js';

/** What settle learned from the chain's notes about one request. */
export interface Settlement {
  routed: RoutedRequest | null;
  reservation: Reservation | null;
  /** the tokens the rate limit counted (at admission, the `reserved` note's; for further search rounds, `counted` notes'), given back when it ends */
  countedTokens: number;
  upstream: Upstream | null;
  usage: Usage | null;
  /** audio seconds billed at the model's per-minute price (transcriptions), else null */
  audioSeconds: number | null;
  /** the provider's in-band error that ended the answer (integrity's `failed` note), else null */
  failed: GatewayError | null;
  /** when the stages got there, for the request's trace; null when tracing is off (nothing marked) */
  marks: StageMarks | null;
}

/** Whether an ended request is charged (true) or its hold released (false). */
export function isCharged(endpoint: EndpointName, s: Pick<Settlement, 'upstream' | 'usage'>, error: GatewayError | undefined): boolean {
  if (error === undefined) return true;
  return endpoint === 'messages' && s.upstream !== null && s.usage !== null;
}

function usageRecord(ctx: RequestContext, s: Settlement, status: Outcome, error: GatewayError | undefined, cost: number): UsageRecord {
  const key = ctx.key!;
  const u = s.usage;
  const labels = s.routed?.request.labels;
  return {
    requestId: ctx.reqId,
    keyId: key.id,
    org: key.org,
    project: key.project,
    environment: key.environment,
    endpoint: ctx.endpoint,
    modelRequested: s.routed?.request.model ?? null,
    modelServed: s.routed?.modelId ?? null,
    provider: s.upstream?.id ?? null,
    inputTokens: u?.input ?? 0,
    outputTokens: u?.output ?? 0,
    cacheReadTokens: u?.cacheRead ?? 0,
    cacheWriteTokens: u?.cacheWrite ?? 0,
    reasoningTokens: u?.reasoning ?? 0,
    webSearches: u?.webSearches ?? 0,
    audioSeconds: s.audioSeconds,
    cost,
    callName: labels?.callName ?? null,
    endUserId: labels?.endUserId ?? null,
    status: status.status,
    errorCode: status.errorCode ?? error?.code ?? null,
    latencyMs: Date.now() - ctx.startedAt,
    routing: s.routed?.routing !== undefined ? JSON.stringify(s.routed.routing) : null,
  };
}

/** Whether the request is charged, and how much (units). */
function chargeOf(ctx: RequestContext, s: Settlement, error: GatewayError | undefined): { charged: boolean; cost: number } {
  const charged = isCharged(ctx.endpoint, s, error);
  return { charged, cost: charged && s.routed !== null ? costOfUsage(ctx.services.catalog, s.routed.modelId, s.usage, s.audioSeconds) : 0 };
}

/**
 * End the reservation (charge or release) and correct the key's token count; the commit's promise.
 * Not an async function: the commit is handed back, not awaited here and again by the caller (one
 * promise and one microtask turn fewer before the answer's last frames).
 */
function endReservation(ctx: RequestContext, s: Settlement, reservation: Reservation, error: GatewayError | undefined, outcome: Outcome, { charged, cost }: { charged: boolean; cost: number }): Promise<unknown> {
  const key = ctx.key!;
  const { store, rateLimiter } = ctx.services;
  const record = usageRecord(ctx, s, outcome, error, cost);
  // queued now (batched with this turn's other ends), awaited last: what follows needs no store
  const committed = store.ledger.endSoon(reservation, record, charged);
  if (charged && s.usage === null && s.audioSeconds === null) ctx.log.warn({ reservation: reservation.id }, 'request ended without validated usage: nothing charged');
  if (cost > reservation.amount) {
    ctx.log.warn({ reservation: reservation.id, reservedUsd: unitsToUsd(reservation.amount), costUsd: unitsToUsd(cost) }, 'cost above the reservation');
  }
  rateLimiter.record(key, tokensUsed(s.usage), s.countedTokens);
  return committed;
}

/**
 * Ends the reservation exactly once (charge or release) with the outcome given; returns the cost
 * charged (units). Never throws: the store refused the write (GW_ERR_UNAVAILABLE): the ledger
 * retries it (lib/store/settle-backlog.ts), the cost is still due; anything else leaves the hold
 * until a sweep releases it: nothing is charged.
 */
export async function endOnce(ctx: RequestContext, s: Settlement, error: GatewayError | undefined, ended: Outcome): Promise<number> {
  const reservation = s.reservation;
  if (reservation === null || ctx.key === null) return 0;
  s.reservation = null; // ended exactly once
  const charge = chargeOf(ctx, s, error);
  const marks = s.marks;
  try {
    if (marks !== null) marks.settleStartAt = preciseNow();
    await endReservation(ctx, s, reservation, error, ended, charge);
    if (marks !== null) marks.settledAt = preciseNow();
    return charge.cost;
  } catch (err) {
    if (GatewayError.is(err) && err.code === 'GW_ERR_UNAVAILABLE') {
      ctx.log.warn({ reservation: reservation.id }, 'settle deferred: the store cannot be written, the ledger retries it');
      return charge.cost;
    }
    ctx.log.error({ reservation: reservation.id, err: (err as Error)?.stack ?? String(err) }, 'settling the reservation failed');
    return 0;
  }
}
