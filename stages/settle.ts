// settle: a passthrough whose `close` ends the request's reservation exactly once and writes the
// one summary log line. It learns everything from the chain's notes (lib/notes.ts): the routed
// request, the reservation (`reserved`), the deployment that answered (`upstream`) and the
// validated usage (`usage`); the runner gives `close` the outcome the client saw.
//
// What is charged (billing model rules 3 and 5):
// - a request that succeeded: the cost of its validated usage (integrity's last `usage` note);
// - a Messages request that failed after provider work, with validated usage so far (mid-stream or
//   integrity failure, client gone): that usage;
// - anything else that failed: nothing (the hold is released; a usage record with cost 0 is kept).
// A stream that ended in the provider's in-band `error` event failed too, though the chain ended
// without an exception (the encoder wrote the dialect's error frame): integrity's `failed` note says
// so, and it is recorded (status the client saw, the error's code) and charged as a failure.
//
// The Chat Completions, Responses and transcription encoders report the cost inside the answer
// with the same function (lib/billing/cost.ts) over the same usage notes, so the reported and the
// charged amounts are the same number (integrity outputs a usage note before the final events
// reach the encoder).
//
// When it is charged (issue #16): a successful answer is settled, and the settle committed, before
// the item that completes it goes on (`completes`: the generation chains' `message-stop`, a
// transcription's one result), so settle sits before the encoder and the frames that tell the
// client it succeeded and what it cost (the final SSE frames, the whole JSON body) are written only
// once the charge is in the store. A process killed at any moment then loses nothing: before the
// commit the client has not seen a success (the sweep releases the hold), after it the charge is
// there. The price: the last frame waits for one batch commit (SQLite: the next event-loop turn;
// PostgreSQL: a round trip). A client that leaves in that moment was still charged for the answer
// it was about to get. Everything else (failures, refusals) is ended at `close` as before.
import type { CanonicalEvent, RoutedRequest, Usage } from '../lib/chunks.js';
import type { EndpointName, RequestContext } from '../lib/context.js';
import { GatewayError } from '../lib/errors.js';
import { costOfUsage, tokensUsed } from '../lib/billing/cost.js';
import type { ChainNote, Outcome, Upstream } from '../lib/notes.js';
import { unitsToUsd } from '../lib/pricing.js';
import { requestSummary } from '../lib/request-log.js';
import type { Stage, StageFactory, StageOutput } from '../lib/stage.js';
import type { Reservation, UsageRecord } from '../lib/store/types.js';
import { preciseNow, type StageMarks } from '../lib/tracing/tracer-api.js';
import { asAsyncIterator, type Pulled, type ReadyIterator } from '../lib/fused-drive.js';

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

export interface SettleOptions<T> {
  /** audio seconds an item says to bill at the model's per-minute price (transcriptions); default none */
  audioSeconds?: (item: T) => number | null;
  /** whether an item completes a successful answer: the settle commits before it goes on; default none (ended at close) */
  completes?: (item: T) => boolean;
}

/** The generation chains' answer is complete at `message-stop` (integrity checked everything before it). */
export const completesAtMessageStop = (ev: CanonicalEvent): boolean => ev.type === 'message-stop';

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
async function endOnce(ctx: RequestContext, s: Settlement, error: GatewayError | undefined, ended: Outcome): Promise<number> {
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

/**
 * One request's settle stage: a class instance holding what the notes said (it is the request's
 * Settlement), not an object literal with a closure per hook and a state object beside it; it lives
 * as long as the request, a stream's included.
 */
class SettleStage<T> implements Stage<T, T>, Settlement {
  readonly name = 'settle';
  /** it outputs its inputs alone (the completing one after its commit) */
  readonly outputsNoNotes = true;
  /** its one async output (`settleThen`) waits for the ledger's commit alone */
  readonly waitsOnlyForStore = true;
  routed: RoutedRequest | null = null;
  reservation: Reservation | null = null;
  countedTokens = 0;
  upstream: Upstream | null = null;
  usage: Usage | null = null;
  audioSeconds: number | null = null;
  failed: GatewayError | null = null;
  /** what was charged when the answer completed (null: not ended yet, ended at close) */
  private settled: number | null = null;

  constructor(
    private readonly opts: SettleOptions<T>,
    private readonly ctx: RequestContext,
    readonly marks: StageMarks | null,
  ) {}

  /** the completing item, passed on once its settle committed (the one wait of settle's per request) */
  private settleThen(item: T): AsyncIterableIterator<T> {
    return asAsyncIterator(new AfterSettle(this, item));
  }

  /** the completing settle, started at the first pull (as a generator's body would be) */
  endCompleted(): Promise<number> {
    return endOnce(this.ctx, this, undefined, { status: 200 });
  }

  /** what the completing settle charged (`close` then only reports it) */
  settledWith(cost: number): void {
    this.settled = cost;
  }

  note(n: ChainNote): void {
    const marks = this.marks;
    if (n.note === 'routed') {
      this.routed = n.routed;
      if (marks !== null) marks.routedAt = preciseNow();
    } else if (n.note === 'reserved') {
      this.reservation = n.reservation;
      this.countedTokens = n.countedTokens;
      if (marks !== null) marks.reservedAt = preciseNow();
    } else if (n.note === 'upstream') this.upstream = n.upstream;
    else if (n.note === 'usage') this.usage = n.usage;
    else if (n.note === 'failed') this.failed = n.error;
    else if (n.note === 'counted') this.countedTokens += n.tokens;
  }

  step(item: T): StageOutput<T> {
    const opts = this.opts;
    if (opts.audioSeconds !== undefined) this.audioSeconds = opts.audioSeconds(item);
    if (this.reservation !== null && this.failed === null && opts.completes?.(item) === true) return this.settleThen(item);
    return [item];
  }

  /**
   * The items before the one that completes the answer (left to `step`, which commits) go on as they
   * are. Audio seconds are read one item at a time (close reports them: a stage may be handed items
   * after one a later stage fails on).
   */
  steps(items: readonly T[], from: number, to: number, out: unknown[]): number {
    const opts = this.opts;
    if (opts.audioSeconds !== undefined) return from;
    for (let k = from; k < to; k++) {
      const item = items[k]!;
      if (this.reservation !== null && this.failed === null && opts.completes?.(item) === true) return k;
      out.push(item);
    }
    return to;
  }

  /**
   * Ends the reservation unless the completing settle did, and reports the request. A completed
   * answer was charged before its last frame left, whatever happened after: then nothing is waited
   * for, and `close` returns no promise (the runner awaits none: no microtask turn per answer).
   */
  close(ctx: RequestContext, chainError?: GatewayError, outcome?: Outcome): Promise<void> | undefined {
    // an in-band provider error ended the answer: a failure, with the status the client saw
    const error = chainError ?? this.failed ?? undefined;
    let ended: Outcome = outcome ?? (error ? { status: error.status, errorCode: error.code } : { status: 200 });
    if (error !== undefined && ended.errorCode === undefined) ended = { status: ended.status, errorCode: error.code };
    const settled = this.settled;
    if (settled !== null) {
      this.report(ctx, error, ended, settled);
      return undefined;
    }
    return this.endThenReport(ctx, error, ended);
  }

  private async endThenReport(ctx: RequestContext, error: GatewayError | undefined, ended: Outcome): Promise<void> {
    this.report(ctx, error, ended, await endOnce(ctx, this, error, ended));
  }

  /** the request's metrics, trace and summary line, once its reservation ended */
  private report(ctx: RequestContext, error: GatewayError | undefined, ended: Outcome, cost: number): void {
    ctx.services.metrics?.requestEnded(ctx, ended.status, cost, this);
    ctx.services.tracer?.requestEnded(ctx, ended.status, cost, this, error);
    if (!ctx.logsInfo) return;
    ctx.log.info(requestSummary(ctx, ended.status, error, cost, this), 'request');
  }
}

/**
 * settle's output for the completing item: the item once its settle committed, then the end, which
 * is there at once (fused-drive.ts `Pulled`: answered as itself, no promise). An iterator, not an
 * async generator: a generator's end costs a promise and a turn of its own.
 */
class AfterSettle<T> implements ReadyIterator<T> {
  private item: T | null;

  constructor(
    private readonly stage: SettleStage<T>,
    item: T,
  ) {
    this.item = item;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Pulled<T> {
    const item = this.item;
    if (item === null) return DONE;
    this.item = null;
    const stage = this.stage;
    return stage.endCompleted().then((cost) => {
      stage.settledWith(cost);
      return { done: false, value: item };
    });
  }

  async return(): Promise<IteratorResult<T>> {
    this.item = null;
    return DONE;
  }
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

export function settle<T>(opts: SettleOptions<T> = {}): StageFactory<T, T> {
  return (ctx): Stage<T, T> => new SettleStage(opts, ctx, ctx.services.tracer !== undefined ? {} : null);
}
