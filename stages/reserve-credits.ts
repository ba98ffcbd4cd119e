// reserve-credits: T → T (unchanged; T is the routed request, or a job that carries one). Before any
// provider work: the key's rate limits admit the request (429 before anything is held), then the
// ledger holds the request's maximum cost against the organization's balance and every spend cap
// (402), and the reservation goes down the chain as a `reserved` note for `settle` to end, with the
// tokens counted (settle replaces them with the tokens used). The limit
// headers (a `headers` note) go on every answer, in the client dialect's names. Hosted-tool uses (web
// searches) are held for only when a deployment of the model speaks the client's own API: nowhere
// else does a hosted tool run (it is dropped or refused), so Codex's ever-present `web_search` costs
// nothing on a Claude or Chat model (FAILURE-MODES F32).
import type { DialectName, RoutedRequest } from '../lib/chunks.js';
import { errors } from '../lib/errors/index.js';
import { estimateUnits, tokenEstimate } from '../lib/pricing.js';
import type { RateDecision } from '../lib/rate-limit.js';
import type { HeadersNote, ReservedNote } from '../lib/notes.js';
import type { Stage, StageFactory, StageOutput } from '../lib/stage.js';
import type { RequestContext } from '../lib/context.js';
import type { Reservation } from '../lib/store/types.js';
import { dialectFor, rateLimitHeaderNames, type RateLimitHeaderNames } from '../lib/dialects/index.js';
import { asAsyncIterator, DONE, type Pulled, type ReadyIterator } from '../lib/fused-drive.js';
import { answerAlone } from '../lib/answers-running.js';

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

export interface ReserveCreditsOptions<T> {
  /** the routed request an item is for; default: the item is the routed request */
  routedOf?: (item: T) => RoutedRequest;
  /**
   * An upper bound of the audio seconds a per-minute-priced request will be billed for
   * (transcriptions); default none.
   */
  audioSecondsBound?: (item: T) => number | null;
}

/** An admitted request: its limit headers, its hold being committed, the tokens its limit counted. */
interface Admitted {
  headers: HeadersNote;
  held: Promise<Reservation>;
  countedTokens: number;
}

type HoldOutput<T> = T | HeadersNote | ReservedNote;

/**
 * An admitted request's output: the limit headers at once (a 402 from the hold carries them too),
 * then the hold once it committed, then the item. A limiter that answers later (Redis, the cluster
 * primary): the same once its decision is in; its 429 (or 503 while the limits cannot be reached)
 * comes out of the first pull, before any hold. What is there already (the headers of a decision
 * made at once, the item, the end) is answered as itself, not as a promise (fused-drive.ts
 * `Pulled`): of the four pulls only the hold's commit is waited for. An iterator that lets go of
 * each piece as it goes on, not a generator: the runner keeps it until the answer the item starts
 * has ended, and a generator would keep its parameters, the item (the whole request) included, in
 * its saved registers.
 */
class AfterHold<T> implements ReadyIterator<HoldOutput<T>> {
  private admitted: Admitted | Promise<Admitted> | null;
  private held: Promise<Reservation> | null = null;
  private countedTokens = 0;
  private item: T | null;

  constructor(
    admitted: Admitted | Promise<Admitted>,
    item: T,
    /** told once the hold committed and its note went on (its stage's `close` then has nothing to wait for) */
    private readonly stage: ReserveCreditsStage<T>,
  ) {
    this.admitted = admitted;
    this.item = item;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Pulled<HoldOutput<T>> {
    const admitted = this.admitted;
    if (admitted !== null) {
      this.admitted = null;
      return admitted instanceof Promise ? admitted.then((a) => this.admit(a)) : this.admit(admitted);
    }
    const held = this.held;
    if (held !== null) {
      this.held = null;
      return held.then((reservation) => this.reserved(reservation));
    }
    const item = this.item;
    if (item === null) return DONE;
    this.item = null;
    return { done: false, value: item };
  }

  /** the limiter's decision: the limit headers go on, the hold is waited for next */
  private admit(admitted: Admitted): IteratorResult<HoldOutput<T>> {
    this.held = admitted.held;
    this.countedTokens = admitted.countedTokens;
    return { done: false, value: admitted.headers };
  }

  /** the hold committed: its note goes on */
  private reserved(reservation: Reservation): IteratorResult<HoldOutput<T>> {
    this.stage.committed();
    return { done: false, value: { note: 'reserved', reservation, countedTokens: this.countedTokens } };
  }

  async return(): Promise<IteratorResult<HoldOutput<T>>> {
    this.admitted = this.held = this.item = null;
    return DONE;
  }
}

const itself = (item: unknown): RoutedRequest => item as RoutedRequest;

/** what waiting for a hold's commit comes to, whether it committed or failed (one function, no closure per request) */
const NOTHING = (): void => undefined;

/** The request as billed at most: without hosted-tool uses when no deployment can run them. */
function billable(routed: RoutedRequest): RoutedRequest {
  const req = routed.request;
  if (req.hostedToolUses === 0) return routed;
  const own = dialectFor(req.source).upstream?.api;
  if (routed.deployments.some((d) => d.api === own)) return routed;
  return { ...routed, request: { ...req, hostedToolUses: 0 } };
}

/**
 * One request's reserve-credits stage: a class instance (its methods shared) rather than an object
 * literal with a closure per hook; it lives as long as the request.
 */
class ReserveCreditsStage<T> implements Stage<T, T | HeadersNote | ReservedNote> {
  readonly name = 'reserve-credits';
  /** the hold being committed (batched with the other holds and settles of this event-loop turn) */
  private pending: Promise<void> | null = null;
  /** the hold committed and its note went on */
  private committedHold = false;

  constructor(
    private readonly opts: ReserveCreditsOptions<T>,
    private readonly routedOf: (item: T) => RoutedRequest,
  ) {}

  step(item: T, ctx: RequestContext): StageOutput<T | HeadersNote | ReservedNote> {
    if (this.pending !== null) return [item];
    const routed = this.routedOf(item);
    const key = ctx.key;
    if (key === null) throw errors.reserveWithoutKey();
    const { catalog, rateLimiter, store } = ctx.services;
    const model = catalog.get(routed.modelId);
    if (model === undefined) throw errors.reserveModelMissing(routed.modelId);
    const tokens = tokenEstimate(model, routed);
    const amount = estimateUnits(model, billable(routed), this.opts.audioSecondsBound?.(item) ?? 0);
    const hold = (decision: RateDecision): Admitted => {
      const headers: HeadersNote = { note: 'headers', headers: rateLimitHeaders(ctx.dialect, decision) };
      // The hold goes on to settle as a `reserved` note in the same pull that waits for it, so the
      // chain cannot end in between; `close` still waits for it, so a hold never outlives the request.
      const held = store.ledger.reserveSoon({ requestId: ctx.reqId, key, amount }, answerAlone()).catch((err: unknown) => {
        // nothing will run: give the counted tokens back
        rateLimiter.record(key, 0, decision.estimatedTokens);
        throw err;
      });
      return { headers, held, countedTokens: decision.estimatedTokens };
    };
    const admitted = rateLimiter.admit(key, tokens, (d) => rateLimitHeaders(ctx.dialect, d));
    if (admitted instanceof Promise) {
      // decided now (not when the chain first pulls), so `close` waits for a hold already asked for
      const started = admitted.then(hold);
      this.pending = started.then((s) => s.held).then(NOTHING, NOTHING);
      return asAsyncIterator(new AfterHold(started, item, this));
    }
    const now = hold(admitted);
    this.pending = now.held.then(NOTHING, NOTHING);
    return asAsyncIterator(new AfterHold(now, item, this));
  }

  /** the hold committed (its `reserved` note went on): nothing left to wait for at `close` */
  committed(): void {
    this.committedHold = true;
  }

  /**
   * Waits for a hold still being committed, so a hold never outlives the request; once it committed
   * (as on every answered request) nothing is waited for: no promise and no microtask turn.
   */
  close(): Promise<void> | undefined {
    return this.committedHold || this.pending === null ? undefined : this.pending;
  }
}

export function reserveCredits<T = RoutedRequest>(opts: ReserveCreditsOptions<T> = {}): StageFactory<T, T | HeadersNote | ReservedNote> {
  const routedOf = opts.routedOf ?? itself;
  return (): Stage<T, T | HeadersNote | ReservedNote> => new ReserveCreditsStage(opts, routedOf);
}
