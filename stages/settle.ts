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
import type { RequestContext } from '../lib/context.js';
import type { GatewayError } from '../lib/errors.js';
import type { ChainNote, Outcome, Upstream } from '../lib/notes.js';
import { requestSummary } from '../lib/request-log.js';
import type { Stage, StageFactory, StageOutput } from '../lib/stage.js';
import type { Reservation } from '../lib/store/types.js';
import { preciseNow, type StageMarks } from '../lib/tracing/tracer-api.js';
import { endOnce, type Settlement } from './settle-charge.js';
import { asAsyncIterator, DONE, type Pulled, type ReadyIterator } from '../lib/fused-drive.js';

export { isCharged, type Settlement } from './settle-charge.js';

export interface SettleOptions<T> {
  /** audio seconds an item says to bill at the model's per-minute price (transcriptions); default none */
  audioSeconds?: (item: T) => number | null;
  /** whether an item completes a successful answer: the settle commits before it goes on; default none (ended at close) */
  completes?: (item: T) => boolean;
}

/** The generation chains' answer is complete at `message-stop` (integrity checked everything before it). */
export const completesAtMessageStop = (ev: CanonicalEvent): boolean => ev.type === 'message-stop';

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

export function settle<T>(opts: SettleOptions<T> = {}): StageFactory<T, T> {
  return (ctx): Stage<T, T> => new SettleStage(opts, ctx, ctx.services.tracer !== undefined ? {} : null);
}
