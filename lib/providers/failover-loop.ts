// The one failover loop every dispatcher (text generation: stages/dispatch.ts; transcriptions:
// stages/transcribe-dispatch.ts) runs: the deployments in order, each attempt numbered and, under
// --record, tapped; a connection failure or timeout, or a 408/409/429/5xx answer, moves on to the
// next deployment; any other error answer is final (lib/providers/failover.ts decides which error
// the client sees). A 2xx answer is failed over too while nothing of it has been handed on: its
// start is held back until it shows content (lib/providers/answer-check.ts: a stream's first
// content frame, a whole JSON answer that decodes), and silence, a reset, a cut, a malformed frame
// or an in-band error before that moves on like a failed head. Then the answer goes out as an
// `upstream` note (which deployment, how, and when; what the check decoded of it, `checked`) and
// its body: what was held (as the check hands it on: in one piece, or as it came after a stream
// start the check decoded), the rest read straight from the body once something went on (no hop
// per chunk: answer-tail.ts) or chunk by chunk from this generator, or read whole by `answer`. If an answer read
// whole is lost, an `upstream: null` note takes it back and the next deployment is tried. The
// upstream's request id goes out as a `headers` note where the client's dialect shows it.
import type { Deployment, RoutedRequest } from '../chunks.js';
import type { RequestContext } from '../context.js';
import { dialects } from '../dialects/index.js';
import { GatewayError } from '../errors.js';
import type { HeadersNote, Upstream, UpstreamNote } from '../notes.js';
import type { UpstreamTiming } from '../request-log.js';
import { abortWatch, type AbortWatch } from '../request-abort.js';
import { aborted, bodyFailure, FailoverAnswer, TailSettle, takeFirst, takeLast, TryNext } from './answer-tail.js';
import { asAsyncIterator } from '../fused-drive.js';
import { holdBack, type AnswerCheck } from './answer-check.js';
import { readLimited } from './error-body.js';
import { errorCode, finalUpstreamError, isRetryableStatus, transportFailure, upstreamError, type Failure } from './failover.js';
import type { ProviderHandle, ProviderPool } from './pool.js';
import { UpstreamCall, upstreamHeader, type UpstreamResponse } from './upstream-call.js';

const EMPTY = Buffer.alloc(0);

export { TryNext };

/** One attempt, ready to go: send it (the request is encoded for its deployment). */
export type Send = (signal: AbortWatch) => Promise<UpstreamResponse>;

export interface FailoverCall<O> {
  /** the request for one deployment; undefined when this deployment cannot serve it (skipped) */
  prepare(deployment: Deployment, handle: ProviderHandle, pool: ProviderPool): Send | undefined;
  /** whether a 2xx answer is an event stream (else one JSON body) */
  streams(res: UpstreamResponse): boolean;
  /**
   * A 2xx answer read whole: what it becomes (throw `TryNext` when its body was lost). Without it,
   * the body's chunks are handed on as they come.
   */
  answer?(res: UpstreamResponse, upstream: Upstream): Promise<readonly O[]>;
  /**
   * What a streamed-on 2xx answer must show before any of it is handed on (held back until then, so
   * that a failure still moves on to the next deployment); undefined hands every chunk on at once.
   */
  check?(upstream: Upstream): AnswerCheck | undefined;
  /** this deployment's answer is the client's: no other deployment will be tried */
  committed?(): void;
  /** the answer's first content went on (no other deployment will be tried): let go of the request */
  handedOn?(): void;
  /** every deployment failed, or none could be tried */
  exhausted(failures: readonly Failure[]): GatewayError;
}

/**
 * A Messages client sees the id of the Anthropic upstream whose answer (or canonical error) it gets
 * in `request-id`, and the gateway's own id in `x-gateway-request-id`: the headers note that says
 * so, or null when the client sees the gateway's id.
 */
export function upstreamIdHeaders(ctx: RequestContext, protocol: Deployment['protocol'], requestId: string | undefined): HeadersNote | null {
  const rule = dialects[ctx.dialect].requestId;
  if (requestId === undefined || rule.upstreamProtocol !== protocol || requestId === ctx.reqId) return null;
  return { note: 'headers', headers: { [rule.header]: requestId, 'x-gateway-request-id': ctx.reqId } };
}

/**
 * A held answer that failed before anything of it was handed on, as a failure to move on from
 * exactly as from a failed head; null for an in-band error that a failed head would not move on
 * from (its status is a 4xx other than 408/409/429).
 */
function answerFailure(err: unknown, deployment: Deployment): Failure | null {
  if (!GatewayError.is(err)) {
    const failure = transportFailure(err, deployment, true);
    return { ...failure, detail: `${failure.detail} before any content` };
  }
  const up = err.upstream;
  if (up === undefined) return { deployment, kind: 'answer', detail: `${deployment.providerId}: ${err.message}` };
  if (!isRetryableStatus(up.status)) return null;
  return { deployment, kind: 'http', upstream: up, detail: `${deployment.providerId}: an in-band error before any content (${up.type ?? up.status}: ${up.message})` };
}

/**
 * Which upstream answered, and how. Two literals, not one with a spread of `{ requestId }` or `{}`:
 * the spread allocates an object per request and gives the result a hidden class of its own.
 */
function upstreamOf(deployment: Deployment, stream: boolean, requestId: string | undefined, timing: UpstreamTiming): Upstream {
  if (requestId === undefined) return { id: deployment.providerId, protocol: deployment.protocol, api: deployment.api, upstreamModel: deployment.upstreamModel, stream, timing };
  return { id: deployment.providerId, protocol: deployment.protocol, api: deployment.api, upstreamModel: deployment.upstreamModel, stream, requestId, timing };
}

type Item<O> = O | Buffer | UpstreamNote | HeadersNote;

export function failover<O>(ctx: RequestContext, routed: RoutedRequest, call: FailoverCall<O>): AsyncIterableIterator<Item<O>> {
  // the generator may live as long as the stream it hands on, and keeps its parameters in its saved
  // registers until then: it gets the request in a holder it empties once the answer went on
  const answer = new FailoverAnswer<Item<O>>();
  answer.loop = attempts(ctx, routed.modelId, routed.deployments, { routed }, call, answer);
  return asAsyncIterator(answer);
}

async function* attempts<O>(ctx: RequestContext, modelId: string, deployments: readonly Deployment[], pending: { routed: RoutedRequest | null }, call: FailoverCall<O>, answer: FailoverAnswer<Item<O>>): AsyncGenerator<Item<O>> {
  const pool = ctx.services.providers;
  const recorder = ctx.services.recorder;
  /** an answer read whole counts a silent body as a timeout */
  const whole = call.answer !== undefined;
  const failures: Failure[] = [];
  const metrics = ctx.services.metrics;
  /** a deployment failed and the loop moves on: counted in gateway_failovers_total */
  const failed = (failure: Failure): void => {
    failures.push(failure);
    metrics?.failedOver(ctx.services.catalog, modelId, failure.deployment.providerId);
  };
  /** the answer's first content went on: no other deployment will be tried */
  const handOn = (): void => {
    pending.routed = null;
    call.handedOn?.();
  };
  let attempt = 0;
  /** the upstream request id the client was shown (a recording notes it) */
  let shownId: string | undefined;
  for (const deployment of deployments) {
    const handle = pool.get(deployment.providerId);
    // not kept once sent: it holds the encoded request (a `const` would stay in a saved register)
    let send = call.prepare(deployment, handle, pool);
    if (send === undefined) continue;
    attempt++; // numbers every try, so a recording's number says which deployment answered
    let res: UpstreamResponse;
    const sentAt = Date.now();
    try {
      res = await send(abortWatch(ctx));
      send = undefined;
    } catch (err) {
      if (abortWatch(ctx).aborted) throw aborted(ctx, err);
      failed(transportFailure(err, deployment, whole));
      ctx.log.warn({ provider: deployment.providerId, err: errorCode(err) }, 'upstream call failed; trying the next deployment');
      continue;
    }
    if (recorder !== undefined) res = recorder.tap(res, ctx, deployment, attempt, pending.routed!, () => shownId ?? ctx.reqId);
    const requestId = upstreamHeader(res, handle.transport.requestIdHeader);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      let text: string;
      try {
        text = await readLimited(res.body);
      } catch (err) {
        if (abortWatch(ctx).aborted) throw aborted(ctx, err);
        failed(transportFailure(err, deployment, whole));
        ctx.log.warn({ provider: deployment.providerId, err: errorCode(err) }, 'upstream answer failed; trying the next deployment');
        continue;
      }
      const upstream = upstreamError(deployment, handle.transport, res.statusCode, res.headers, text);
      if (isRetryableStatus(res.statusCode)) {
        failed({ deployment, kind: 'http', upstream, detail: `${deployment.providerId}: HTTP ${res.statusCode}` });
        ctx.log.warn({ provider: deployment.providerId, status: res.statusCode }, 'upstream error; trying the next deployment');
        continue;
      }
      const error = finalUpstreamError(deployment, upstream);
      const shown = error.upstream !== undefined ? upstreamIdHeaders(ctx, deployment.protocol, requestId) : null;
      if (shown !== null) {
        shownId = requestId;
        yield shown;
      }
      throw error;
    }
    const timing: UpstreamTiming = { sentAt, headersAt: Date.now() };
    const answered = upstreamOf(deployment, call.streams(res), requestId, timing);
    if (call.answer !== undefined) {
      let lost: TryNext | undefined;
      yield { note: 'upstream', upstream: answered, checked: undefined };
      const shown = upstreamIdHeaders(ctx, deployment.protocol, requestId);
      if (shown !== null) {
        shownId = requestId;
        yield shown;
      }
      let outputs: readonly O[] | undefined;
      try {
        outputs = await call.answer(res, answered);
      } catch (err) {
        if (abortWatch(ctx).aborted) throw aborted(ctx, err);
        if (!(err instanceof TryNext)) throw err;
        lost = err;
      } finally {
        timing.endedAt ??= Date.now();
      }
      if (outputs !== undefined) {
        call.committed?.();
        yield* outputs;
        return;
      }
      failed(transportFailure(lost!.failure, deployment, whole));
      ctx.log.warn({ provider: deployment.providerId, err: errorCode(lost!.failure) }, 'upstream answer failed; trying the next deployment');
      yield { note: 'upstream', upstream: null, checked: undefined }; // nothing of it reached anyone: no provider work
      continue;
    }
    let check = call.check?.(answered);
    let held: Buffer[] | null = null;
    if (check !== undefined) {
      try {
        held = await holdBack(res.body, check);
      } catch (err) {
        timing.endedAt = Date.now();
        if (abortWatch(ctx).aborted) throw aborted(ctx, err);
        const failure = answerFailure(err, deployment);
        if (failure === null) {
          // an in-band error that is not failed over (a 4xx): final, as the same error answer would be
          const up = (err as GatewayError).upstream!;
          const shown = upstreamIdHeaders(ctx, deployment.protocol, requestId);
          if (shown !== null) {
            shownId = requestId;
            yield shown;
          }
          throw finalUpstreamError(deployment, up);
        }
        failed(failure);
        ctx.log.warn({ provider: deployment.providerId, err: GatewayError.is(err) ? err.code : errorCode(err), detail: failure.detail }, 'upstream answer failed before any content; trying the next deployment');
        continue;
      }
    }
    call.committed?.();
    // the generator lives as long as the stream: it keeps neither the check nor what it decoded (the
    // start's events and decoder, ~2.5 KB, which the stages take from the note once); a local would
    // stay in the generator's saved registers until the stream ends
    let note: UpstreamNote | null = { note: 'upstream', upstream: answered, checked: check?.handOff() };
    check = undefined;
    yield note;
    note = null;
    const shown = upstreamIdHeaders(ctx, deployment.protocol, requestId);
    if (shown !== null) {
      shownId = requestId;
      yield shown;
    }
    let handedOn = false;
    if (held !== null && held.length > 0) {
      // the generator lives as long as the stream: it does not keep the first chunks after handing them on
      const first = held;
      held = null;
      handedOn = true;
      handOn();
      timing.firstContentAt = Date.now();
      const body = res.body;
      if (body instanceof UpstreamCall) {
        // the rest goes on from the answer itself (answer-tail.ts): the held chunks after the first,
        // then the body read straight, each at once when it is there; this generator is not resumed
        // after this yield
        body.settleWith(new TailSettle(ctx, deployment, timing));
        answer.handOff(body, first);
        yield takeFirst(first);
      } else {
        let chunk: Buffer | null = null;
        const last = first.length - 1;
        for (let k = 0; k < last; k++) {
          chunk = first[k]!;
          first[k] = EMPTY;
          yield chunk;
        }
        chunk = null; // nor the last of them (~1 KB: a stream's start) in a saved register
        yield takeLast(first);
      }
    }
    try {
      for await (const chunk of res.body) {
        if (!handedOn) {
          handedOn = true;
          handOn();
          timing.firstContentAt = Date.now();
        }
        yield chunk;
      }
      timing.endedAt = Date.now();
      return;
    } catch (err) {
      timing.endedAt = Date.now();
      const failure = bodyFailure(ctx, deployment, err, handedOn);
      if (!(failure instanceof TryNext)) throw failure;
      failed(transportFailure(failure.failure, deployment, whole));
      ctx.log.warn({ provider: deployment.providerId, err: errorCode(failure.failure) }, 'upstream answer failed; trying the next deployment');
      yield { note: 'upstream', upstream: null, checked: undefined }; // nothing of it reached anyone: no provider work
    }
  }
  const error = call.exhausted(failures);
  // the last failure's own error is what the client gets: show its request id
  const shown = error.upstream !== undefined ? upstreamIdHeaders(ctx, failures[failures.length - 1]!.deployment.protocol, error.upstream.requestId) : null;
  if (shown !== null) yield shown;
  throw error;
}
