// settle: a passthrough whose `close` ends the request's reservation exactly once and writes the
// one summary log line.
//
// What is charged (billing model rules 3 and 5):
// - a request that succeeded: the cost of its validated usage (`ctx.usage`, kept by integrity);
// - a Messages request that failed after provider work, with validated usage so far (mid-stream or
//   integrity failure, client gone): that usage;
// - anything else that failed: nothing (the hold is released; a usage record with cost 0 is kept).
//
// The Chat Completions, Responses and transcription encoders report the cost inside the answer,
// before the request closes: they call `costOfUsage(ctx)` at the end of the stream, and settle
// charges `costOfUsage(ctx)` too, so the reported and the charged amounts are the same number as long
// as `ctx.usage` does not change after the encoder read it (integrity sets it before the final
// events reach the encoder).
import type { RequestContext } from '../lib/context.js';
import type { GatewayError } from '../lib/errors.js';
import { tokenEstimate, unitsToUsd } from '../lib/pricing.js';
import { costOfUsage as costOf, tokensUsed } from '../lib/billing/cost.js';
import { requestSummary } from '../lib/request-log.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import type { UsageRecord } from '../lib/store/types.js';

/**
 * The cost in units of the request's validated usage so far at the served model's prices (plus
 * per-minute audio when `audioSeconds` is given): what the encoders report and settle charges.
 */
export function costOfUsage(ctx: RequestContext, audioSeconds: number | null = null): number {
  return ctx.routed === null ? 0 : costOf(ctx.services.catalog, ctx.routed.modelId, ctx.usage, audioSeconds);
}

export { tokensUsed };

/** Whether an ended request is charged (true) or its hold released (false). */
export function isCharged(ctx: RequestContext, error: GatewayError | undefined): boolean {
  if (error === undefined) return true;
  return ctx.endpoint === 'messages' && ctx.providerWork && ctx.usage !== null;
}

export interface SettleOptions {
  /** audio seconds billed at the model's per-minute price (transcriptions); default none */
  audioSeconds?: (ctx: RequestContext) => number | null;
}

function usageRecord(ctx: RequestContext, error: GatewayError | undefined, cost: number, audioSeconds: number | null): UsageRecord {
  const key = ctx.key!;
  const u = ctx.usage;
  const labels = ctx.routed?.request.labels;
  return {
    requestId: ctx.reqId,
    keyId: key.id,
    org: key.org,
    project: key.project,
    environment: key.environment,
    endpoint: ctx.endpoint,
    modelRequested: ctx.routed?.request.model ?? null,
    modelServed: ctx.routed?.modelId ?? null,
    provider: ctx.provider?.id ?? null,
    inputTokens: u?.input ?? 0,
    outputTokens: u?.output ?? 0,
    cacheReadTokens: u?.cacheRead ?? 0,
    cacheWriteTokens: u?.cacheWrite ?? 0,
    reasoningTokens: u?.reasoning ?? 0,
    webSearches: u?.webSearches ?? 0,
    audioSeconds,
    cost,
    callName: labels?.callName ?? null,
    endUserId: labels?.endUserId ?? null,
    status: ctx.outcome?.status ?? (error ? error.status : 200),
    errorCode: ctx.outcome?.errorCode ?? error?.code ?? null,
    latencyMs: Date.now() - ctx.startedAt,
  };
}

/** End the reservation (charge or release) and correct the key's token count; returns the charged units. */
async function endReservation(ctx: RequestContext, error: GatewayError | undefined, opts: SettleOptions): Promise<number> {
  const reservation = ctx.reservation!;
  const key = ctx.key!;
  const { store, rateLimiter, catalog } = ctx.services;
  const audioSeconds = opts.audioSeconds?.(ctx) ?? null;
  const charged = isCharged(ctx, error);
  const cost = charged ? costOfUsage(ctx, audioSeconds) : 0;
  const record = usageRecord(ctx, error, cost, audioSeconds);
  ctx.reservation = null;
  await store.ledger.endSoon(reservation, record, charged);
  if (charged && ctx.usage === null && audioSeconds === null) ctx.log.warn({ reservation: reservation.id }, 'request ended without validated usage: nothing charged');
  if (cost > reservation.amount) {
    ctx.log.warn({ reservation: reservation.id, reservedUsd: unitsToUsd(reservation.amount), costUsd: unitsToUsd(cost) }, 'cost above the reservation');
  }
  const model = ctx.routed ? catalog.get(ctx.routed.modelId) : undefined;
  const estimated = model && ctx.routed ? tokenEstimate(model, ctx.routed) : 0;
  rateLimiter.record(key, tokensUsed(ctx.usage), estimated);
  return cost;
}

export function settle<T>(opts: SettleOptions = {}): StageFactory<T, T> {
  return (): Stage<T, T> => ({
    name: 'settle',
    step(chunk) {
      return [chunk];
    },
    async close(ctx, error) {
      let cost = 0;
      if (ctx.reservation !== null && ctx.key !== null) {
        const reservation = ctx.reservation;
        try {
          cost = await endReservation(ctx, error, opts);
        } catch (err) {
          // the reservation stays held until the next start releases it; never fail the close
          ctx.log.error({ reservation: reservation.id, err: (err as Error)?.stack ?? String(err) }, 'settling the reservation failed');
        }
      }
      if (!ctx.logsInfo) return;
      ctx.log.info(requestSummary(ctx, ctx.outcome?.status ?? (error ? error.status : 200), error, cost), 'request');
    },
  });
}
