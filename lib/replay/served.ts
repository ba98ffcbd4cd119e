// What the gateway knew about a request that is not in the upstream's bytes but shows in the
// client's answer: the catalog model that served (Chat and Responses name it, and price the usage
// with it), whether gateway-auto chose it and how long that took, and a capped max_tokens. A
// recording's .meta.json carries these, so a replay can give the client's answer again; offline
// they are put where the encoders read them (`ctx.routed`, the catalog of `ctx.services`).
import type { CanonicalRequest, RoutedRequest } from '../chunks.js';
import type { CatalogModel } from '../catalog.js';
import type { Pricing } from '../config.js';
import type { RequestContext } from '../context.js';
import type { Services } from '../services.js';
import type { ReplayDialect } from './detect.js';

export interface ServedFacts {
  /** catalog id of the model that served (`anthropic/claude-sonnet-5`) */
  modelId: string;
  /** gateway-auto chose the model */
  routed?: boolean;
  routingLatencyMs?: number | null;
  maxTokensCappedTo?: number | null;
  /** the model's prices (config `models[].pricing`): the cost Chat and Responses report */
  pricing?: Pricing;
}

/** `ctx` as a request for `served` would have it after routing. */
export function applyServed(ctx: RequestContext, served: ServedFacts, client: { dialect: ReplayDialect; model: string | undefined; stream: boolean }): RequestContext {
  const request: CanonicalRequest = {
    source: client.dialect,
    // not recorded: answers that echo request fields (Responses) show their defaults; a Responses
    // request must have an input to be read
    body: client.dialect === 'openai-responses' ? { ...(client.model !== undefined ? { model: client.model } : {}), input: '(not recorded)' } : {},
    model: client.model ?? null,
    stream: client.stream,
    maxTokens: null,
    needs: { modalities: new Set(['text']), tools: false, reasoning: false, signedThinking: false },
    inputTokenBound: 0,
    hostedToolUses: 0,
    labels: {},
    forward: { betas: [], headers: {} },
  };
  const routed: RoutedRequest = {
    request,
    modelId: served.modelId,
    deployments: [],
    routed: served.routed ?? false,
    routingLatencyMs: served.routingLatencyMs ?? null,
    maxTokens: null,
    modelMaxOutputTokens: 0,
    modelReasoning: false,
    maxTokensCappedTo: served.maxTokensCappedTo ?? null,
    thinkingBudget: null,
  };
  const model = served.pricing === undefined ? undefined : ({ id: served.modelId, pricing: served.pricing } as unknown as CatalogModel);
  const catalog = { get: (id: string) => (id === served.modelId ? model : undefined) };
  return { ...ctx, routed, services: { catalog } as unknown as Services };
}
