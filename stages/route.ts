// route: CanonicalRequest → RoutedRequest. Resolves the model value (catalog id, alias, vendor name,
// undated version, bound snapshot) or, for `gateway-auto`, lets the router choose among the
// candidates that meet the request's hard needs (route-auto.ts); checks the key's model allowlist;
// caps max_tokens to the model's maximum output and reconciles a manual thinking budget. The routed
// request is also output as a `routed` note, for the stages after dispatch (the encoder, settle).
import { answerView } from '../lib/answer-request.js';
import type { CanonicalRequest, RoutedRequest, RoutingDecision } from '../lib/chunks.js';
import type { CatalogModel } from '../lib/catalog.js';
import { modelAllowed } from '../lib/catalog.js';
import type { RequestContext } from '../lib/context.js';
import { capabilityRejected, type GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import type { RoutedNote } from '../lib/notes.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import { pickAuto } from './route-auto.js';

export const AUTO_MODEL = 'gateway-auto';
const MIN_THINKING_BUDGET = 1024;

function unknownModel(ctx: RequestContext, value: string): GatewayError {
  return errors.modelUnknown(value, ctx.services.catalog.suggestions(value, ctx.key?.models ?? []));
}

function checkDirect(model: CatalogModel, req: CanonicalRequest, ctx: RequestContext): void {
  if (!modelAllowed(ctx.key?.models ?? [], model.id)) throw errors.modelNotAllowed(model.id, ctx.key?.id);
  if (!model.text) throw errors.modelNotText(model.id);
  for (const m of req.needs.modalities) {
    if (!model.input.has(m)) throw errors.modalityUnsupported(model.id, m);
  }
  if (req.needs.speed === 'fast' && !model.speeds.has('fast')) {
    throw capabilityRejected('speed', `model "${model.id}" has no fast mode. Remove "speed" or change it to "standard", or pin a model that supports fast mode (a model offers it when \`models[].speeds\` in the gateway config lists "fast").`);
  }
}

export function routeRequest(req: CanonicalRequest, ctx: RequestContext): RoutedRequest {
  const started = performance.now();
  let model: CatalogModel;
  let routing: RoutingDecision | undefined;
  const auto = req.model === null || req.model === AUTO_MODEL;
  if (auto) {
    ({ model, routing } = pickAuto(req, ctx));
  } else {
    const hit = ctx.services.catalog.resolve(req.model!);
    if (!hit) throw unknownModel(ctx, req.model!);
    model = hit.model;
    checkDirect(model, req, ctx);
  }
  const routingLatencyMs = auto ? Math.round((performance.now() - started) * 1000) / 1000 : null;
  let maxTokens = req.maxTokens;
  let cappedTo: number | null = null;
  if (maxTokens !== null && maxTokens > model.maxOutputTokens) {
    maxTokens = model.maxOutputTokens;
    cappedTo = maxTokens;
  }
  let budget = req.thinkingBudget ?? null;
  if (budget !== null && maxTokens !== null && budget >= maxTokens) {
    budget = maxTokens - 1;
    if (budget < MIN_THINKING_BUDGET) {
      throw errors.thinkingBudgetNoRoom(model.id, maxTokens, MIN_THINKING_BUDGET);
    }
  }
  return {
    request: req,
    modelId: model.id,
    deployments: model.deployments,
    routed: auto,
    routingLatencyMs,
    maxTokens,
    modelMaxOutputTokens: model.maxOutputTokens,
    modelReasoning: model.reasoning,
    maxTokensCappedTo: cappedTo,
    thinkingBudget: budget,
    ...(routing !== undefined ? { routing } : {}),
  };
}

/**
 * The routed request, handed on (dispatch sends it), and told to the later stages (encoder, settle)
 * as a note: what they keep of it while the answer streams (lib/answer-request.ts).
 */
export function route(): StageFactory<CanonicalRequest, RoutedRequest | RoutedNote> {
  return (): Stage<CanonicalRequest, RoutedRequest | RoutedNote> => ({
    name: 'route',
    step(req, ctx) {
      const routed = routeRequest(req, ctx);
      return [{ note: 'routed', routed: answerView(routed) }, routed];
    },
  });
}
