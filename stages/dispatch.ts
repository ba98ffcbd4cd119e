// dispatch: RoutedRequest → upstream body bytes, after an `upstream` note saying which deployment
// answered (and a `headers` note with the upstream's request id where the client sees it). Tries the model's deployments in order; before the
// first byte, a 429, 5xx, 529, timeout or connection failure moves on to the next deployment. Other
// upstream errors are preserved (status, wording, retry-after, request id). The call is cancelled
// when the request's signal aborts (client gone, shutdown).
import type { Deployment, RoutedRequest } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import { GatewayError } from '../lib/errors.js';
import { errorCode, finalUpstreamError, header, isRetryableStatus, transportFailure, upstreamError, type Failure } from '../lib/providers/failover.js';
import { dialects, encodeUpstreamRequest, canEncode } from '../lib/dialects/index.js';
import type { HeadersNote, Upstream, UpstreamNote } from '../lib/notes.js';
import type { UpstreamTiming } from '../lib/request-log.js';
import type { Stage, StageFactory } from '../lib/stage.js';

const MAX_ERROR_BODY = 64 * 1024;

async function readLimited(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < MAX_ERROR_BODY) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ERROR_BODY);
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

/** Every deployment failed: the error the client sees. */
function exhausted(routed: RoutedRequest, failures: Failure[]): GatewayError {
  const summary = failures.map((f) => f.detail).join('; ');
  const last = failures[failures.length - 1];
  const message = `All ${failures.length} provider deployment(s) of model ${routed.modelId} failed: ${summary}`;
  if (!last) {
    return new GatewayError(
      'GW_ERR_PROVIDER_UNAVAILABLE',
      `No deployment of model ${routed.modelId} can serve this request: none of its \`models[].deployments[].api\` in the gateway config (${[...new Set(routed.deployments.map((d) => d.api))].join(', ')}) is reachable from this endpoint.`,
    );
  }
  if (failures.every((f) => f.kind === 'timeout')) return new GatewayError('GW_ERR_UPSTREAM_TIMEOUT', message);
  const up = last.upstream;
  if (last.kind === 'http' && up) {
    const headers: Record<string, string> = up.retryAfter ? { 'retry-after': up.retryAfter } : {};
    const opts = { upstream: up, headers };
    if (up.status === 429) return new GatewayError('GW_ERR_UPSTREAM_RATE_LIMITED', up.message, opts);
    if (up.status === 529) return new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', up.message, opts);
    return new GatewayError('GW_ERR_PROVIDER_UNAVAILABLE', up.message, opts);
  }
  return new GatewayError('GW_ERR_PROVIDER_UNAVAILABLE', message);
}

/** What dispatch outputs: first which upstream answered (and the id headers it shows), then its bytes. */
export type DispatchOutput = Buffer | UpstreamNote | HeadersNote;

export function dispatch(): StageFactory<RoutedRequest, DispatchOutput> {
  return (): Stage<RoutedRequest, DispatchOutput> => ({
    name: 'dispatch',
    step: (routed, ctx) => call(routed, ctx),
  });
}

async function* call(routed: RoutedRequest, ctx: RequestContext): AsyncGenerator<DispatchOutput> {
  const pool = ctx.services.providers;
  const recorder = ctx.services.recorder;
  const failures: Failure[] = [];
  let attempt = 0;
  /** the upstream request id the client was shown (a recording notes it) */
  let shownId: string | undefined;
  for (const deployment of routed.deployments) {
    if (!canEncode(routed.request.source, deployment.api)) continue;
    const handle = pool.get(deployment.providerId);
    const upstreamCall = encodeUpstreamRequest(routed, deployment);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: upstreamCall.stream ? 'text/event-stream' : 'application/json',
      ...upstreamCall.headers,
      ...handle.auth,
    };
    attempt++; // numbers every try, so a recording's number says which deployment answered
    let res;
    const sentAt = Date.now();
    try {
      res = await pool.open(handle, handle.transport.path(deployment.api), { headers, body: upstreamCall.body, signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted) throw GatewayError.from(ctx.signal.reason ?? err);
      failures.push(transportFailure(err, deployment));
      ctx.log.warn({ provider: deployment.providerId, err: errorCode(err) }, 'upstream call failed; trying the next deployment');
      continue;
    }
    if (recorder !== undefined) res = recorder.tap(res, ctx, deployment, attempt, routed, () => shownId ?? ctx.reqId);
    const requestId = header(res.headers, handle.transport.requestIdHeader);
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const upstream = upstreamError(deployment, handle.transport, res.statusCode, res.headers, await readLimited(res.body));
      if (isRetryableStatus(res.statusCode)) {
        failures.push({ deployment, kind: 'http', upstream, detail: `${deployment.providerId}: HTTP ${res.statusCode}` });
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
    const contentType = header(res.headers, 'content-type') ?? '';
    const answered: Upstream = {
      id: deployment.providerId,
      protocol: deployment.protocol,
      api: deployment.api,
      upstreamModel: deployment.upstreamModel,
      stream: /text\/event-stream/i.test(contentType) || (upstreamCall.stream && !/json/i.test(contentType)),
      ...(requestId !== undefined ? { requestId } : {}),
      timing,
    };
    routed.request.raw = undefined; // no other deployment will be tried: let the bytes go
    yield { note: 'upstream', upstream: answered };
    const shown = upstreamIdHeaders(ctx, deployment.protocol, requestId);
    if (shown !== null) {
      shownId = requestId;
      yield shown;
    }
    let yielded = false;
    try {
      for await (const chunk of res.body) {
        yielded = true;
        yield chunk as Buffer;
      }
      timing.endedAt = Date.now();
    } catch (err) {
      timing.endedAt = Date.now();
      if (ctx.signal.aborted) throw GatewayError.from(ctx.signal.reason ?? err);
      const code = errorCode(err);
      if (code === 'UND_ERR_BODY_TIMEOUT') throw new GatewayError('GW_ERR_STREAM_IDLE', `The provider ${deployment.providerId} went silent for longer than the idle timeout.`);
      if (!yielded) {
        failures.push(transportFailure(err, deployment));
        yield { note: 'upstream', upstream: null }; // nothing of it reached anyone: no provider work
        continue;
      }
      throw new GatewayError('GW_ERR_UPSTREAM', `The connection to the provider ${deployment.providerId} was lost mid-response (${code}).`, { status: 502, cause: err });
    }
    return;
  }
  const error = exhausted(routed, failures);
  // the last failure's own error is what the client gets: show its request id
  const shown = error.upstream !== undefined ? upstreamIdHeaders(ctx, failures[failures.length - 1]!.deployment.protocol, error.upstream.requestId) : null;
  if (shown !== null) yield shown;
  throw error;
}
