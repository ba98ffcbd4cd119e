// dispatch: RoutedRequest → upstream body bytes, after an `upstream` note saying which deployment
// answered (and a `headers` note with the upstream's request id where the client sees it). Tries the
// model's deployments in order with the shared failover loop (lib/providers/failover-loop.ts): before
// anything reached the client, a 429, 5xx, 529, timeout or connection failure moves on to the next
// deployment, and so does a 2xx answer that fails before its first content frame (a stream) or
// before it was read whole and decoded (JSON): silence, a reset, a cut, a malformed frame, an in-band
// error (lib/providers/answer-check.ts).
// Other upstream errors are preserved (status, wording, retry-after, request id). The call is
// cancelled when the request's signal aborts (client gone, shutdown).
import type { Deployment, RoutedRequest } from '../lib/chunks.js';
import type { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import type { Failure } from '../lib/providers/failover.js';
import { failover, type FailoverCall, type Send } from '../lib/providers/failover-loop.js';
import { answerCheck, type AnswerCheck } from '../lib/providers/answer-check.js';
import { withoutParams } from '../lib/providers/drop-params.js';
import { encodeUpstreamRequest, canEncode, type EncodedCall } from '../lib/dialects/index.js';
import type { HeadersNote, Upstream, UpstreamNote } from '../lib/notes.js';
import type { ProviderHandle, ProviderPool } from '../lib/providers/pool.js';
import { upstreamHeader, type UpstreamResponse } from '../lib/providers/upstream-call.js';
import type { Stage, StageFactory } from '../lib/stage.js';

/** Every deployment failed: the error the client sees (the last one's own error when it answered). */
function exhausted(modelId: string, deployments: readonly Deployment[], failures: readonly Failure[]): GatewayError {
  const last = failures[failures.length - 1];
  if (!last) return errors.noReachableDeployment(modelId, [...new Set(deployments.map((d) => d.api))]);
  const details = failures.map((f) => f.detail);
  if (failures.every((f) => f.kind === 'timeout')) return errors.deploymentsTimedOut(modelId, details, undefined);
  const up = last.upstream;
  if (last.kind === 'http' && up) {
    if (up.status === 429) return errors.upstreamRateLimited(up);
    if (up.status === 529) return errors.upstreamOverloaded(up);
    return errors.upstreamUnavailable(up);
  }
  return errors.deploymentsFailed(modelId, details, undefined);
}

/** The request headers of a call that adds none of its own, per provider: [JSON answer, stream]. */
const plainHeaders = new WeakMap<ProviderHandle, readonly [Readonly<Record<string, string>>, Readonly<Record<string, string>>]>();

function hasNone(headers: Readonly<Record<string, string>>): boolean {
  for (const _ in headers) return false;
  return true;
}

/**
 * What goes upstream with the body: the content type, what answer is accepted, the call's own
 * headers, the provider's auth. A native Chat or Responses call adds none of its own, so its headers
 * depend on the provider alone: built once per provider handle (a reload makes new handles), not
 * per request. undici only reads them.
 */
function requestHeaders(call: EncodedCall, handle: ProviderHandle): Readonly<Record<string, string>> {
  const build = (stream: boolean): Record<string, string> => ({
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    ...call.headers,
    ...handle.auth,
  });
  if (!hasNone(call.headers)) return build(call.stream);
  let both = plainHeaders.get(handle);
  if (both === undefined) plainHeaders.set(handle, (both = [Object.freeze(build(false)), Object.freeze(build(true))]));
  return both[call.stream ? 1 : 0];
}

/** What dispatch outputs: first which upstream answered (and the id headers it shows), then its bytes. */
export type DispatchOutput = Buffer | UpstreamNote | HeadersNote;

/**
 * The routed request, encoded for each deployment in turn; the answer's bytes streamed on. A class
 * instance (its methods shared), not an object literal with a closure per method: the failover loop
 * holds it for as long as the answer streams, so it lets go of the request once the answer's first
 * content went on (a 200 KB request was kept for the stream's life).
 */
class TextCall implements FailoverCall<never> {
  /** whether the request last sent asked for a stream: it decides how a 2xx answer is read */
  private sentStream = false;
  /** null once the answer went on: no other deployment will be tried */
  private routed: RoutedRequest | null;
  private readonly modelId: string;
  private readonly deployments: readonly Deployment[];

  constructor(routed: RoutedRequest) {
    this.routed = routed;
    this.modelId = routed.modelId;
    this.deployments = routed.deployments;
  }

  prepare(deployment: Deployment, handle: ProviderHandle, pool: ProviderPool): Send | undefined {
    const routed = this.routed!;
    if (!canEncode(routed.request.source, deployment.api)) return undefined;
    const encoded = encodeUpstreamRequest(routed, deployment);
    const drop = handle.config.dropParams;
    const upstreamCall = drop === undefined || drop.length === 0 ? encoded : withoutParams(encoded, drop);
    this.sentStream = upstreamCall.stream;
    const headers = requestHeaders(upstreamCall, handle);
    return (signal) => pool.open(handle, handle.transport.path(deployment.api), { headers, body: upstreamCall.body, signal });
  }

  streams(res: UpstreamResponse): boolean {
    const contentType = upstreamHeader(res, 'content-type') ?? '';
    return /text\/event-stream/i.test(contentType) || (this.sentStream && !/json/i.test(contentType));
  }

  check(upstream: Upstream): AnswerCheck | undefined {
    return answerCheck(upstream);
  }

  committed(): void {
    // no other deployment will be tried: let the request's bytes go
    this.routed!.request.raw = undefined;
  }

  handedOn(): void {
    this.routed = null;
  }

  exhausted(failures: readonly Failure[]): GatewayError {
    return exhausted(this.modelId, this.deployments, failures);
  }
}

/** The stage holds nothing of its own per request (the failover loop's generator does): one for every request. */
const DISPATCH: Stage<RoutedRequest, DispatchOutput> = {
  name: 'dispatch',
  step: (routed, ctx) => failover(ctx, routed, new TextCall(routed)) as AsyncIterableIterator<DispatchOutput>,
};

export function dispatch(): StageFactory<RoutedRequest, DispatchOutput> {
  return () => DISPATCH;
}
