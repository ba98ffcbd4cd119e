// What the gateway knew about a request that is not in the upstream's bytes but shows in the
// client's answer: the catalog model that served (Chat and Responses name it, and price the usage
// with it), whether gateway-auto chose it and how long that took, and a capped max_tokens. A
// recording's .meta.json carries these, so a replay can give the client's answer again; offline
// they become what the encoders read (lib/encoder-input.ts: the routed request, and a catalog that
// prices the served model).
import type { CanonicalRequest, RoutedRequest } from '../chunks.js';
import type { CatalogModel } from '../catalog.js';
import type { Pricing } from '../config.js';
import type { Catalog } from '../catalog.js';
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

/** The routed request `served` stands for, and a catalog that prices its model. */
export function servedRequest(served: ServedFacts, client: { dialect: ReplayDialect; model: string | undefined; stream: boolean }): { routed: RoutedRequest; catalog: Pick<Catalog, 'get'> } {
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
  return { routed, catalog };
}
