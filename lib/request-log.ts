// The one access-log line per request (`msg: "request"`): what an operator needs to answer "what
// happened to this request?" without a debugger — who asked (key id), for what (method, path,
// requested model), what served it (model, provider, the upstream's own request id, which a client
// of an Anthropic-style API is shown and will quote), how it ended (status, error code and message),
// what it used and cost, where the time went (gateway time beside upstream time), and for
// `gateway-auto` why that model (`routing`: the top candidates with predicted quality and expected
// cost, the target, and what the session's pin made of the choice). Secrets and
// prompts never: the fields below are ids, counts, codes and the gateway's own error wording.
import type { RoutedRequest, Usage } from './chunks.js';
import type { RequestContext } from './context.js';
import type { GatewayError } from './errors.js';
import type { Upstream } from './notes.js';
import { unitsToUsd } from './pricing.js';

/** error messages are the gateway's own wording, but an upstream's may be long: keep the line short */
const MAX_MESSAGE = 300;

/** When the served upstream call started, answered its head and ended (ms since the epoch). */
export interface UpstreamTiming {
  sentAt: number;
  headersAt?: number;
  /** a stream's first content (the answer check let it through, or its first chunk): time to first token */
  firstContentAt?: number;
  endedAt?: number;
}

/** Time spent waiting on the provider that served the request (ms): from the call to its last byte. */
export function upstreamMs(timing: UpstreamTiming | undefined, now: number): number | undefined {
  if (timing === undefined) return undefined;
  return (timing.endedAt ?? now) - timing.sentAt;
}

/** What the chain learned about a request (from its notes: settle keeps them); nothing for a helper route. */
export interface ChainFacts {
  readonly routed: RoutedRequest | null;
  readonly upstream: Upstream | null;
  readonly usage: Usage | null;
}

export const NO_FACTS: ChainFacts = { routed: null, upstream: null, usage: null };

export function requestSummary(ctx: RequestContext, status: number, error: GatewayError | undefined, costUnits: number, facts: ChainFacts = NO_FACTS): Record<string, unknown> {
  const now = Date.now();
  const ms = now - ctx.startedAt;
  const u = facts.usage;
  const provider = facts.upstream;
  const up = upstreamMs(provider?.timing, now);
  const line: Record<string, unknown> = {
    method: ctx.method,
    path: ctx.path,
    status,
    keyId: ctx.key?.id,
    modelRequested: facts.routed?.request.model,
    model: facts.routed?.modelId,
    provider: provider?.id,
    upstreamRequestId: provider?.requestId ?? error?.upstream?.requestId,
    usage: { input: u?.input ?? 0, output: u?.output ?? 0, cacheRead: u?.cacheRead ?? 0, cacheWrite: u?.cacheWrite ?? 0 },
    costUsd: unitsToUsd(costUnits),
    ms,
  };
  const routing = facts.routed?.routing;
  if (routing !== undefined) line.routing = routing;
  if (up !== undefined) {
    line.upstreamMs = up;
    line.gatewayMs = Math.max(0, ms - up);
  }
  if (error !== undefined) {
    line.errorCode = error.code;
    line.errorMessage = error.message.length > MAX_MESSAGE ? `${error.message.slice(0, MAX_MESSAGE)}…` : error.message;
  }
  return line;
}
