// route: CanonicalRequest → RoutedRequest. Resolves the model value (catalog id, alias, vendor name,
// undated version, bound snapshot) or, for `gateway-auto`, picks the first router candidate that
// meets the request's hard needs; checks the key's model allowlist; caps max_tokens to the model's
// maximum output and reconciles a manual thinking budget. The routed request is also output as a
// `routed` note, for the stages after dispatch (the encoder, settle).
import type { CanonicalRequest, RoutedRequest } from '../lib/chunks.js';
import type { CatalogModel } from '../lib/catalog.js';
import { modelAllowed } from '../lib/catalog.js';
import type { RequestContext } from '../lib/context.js';
import { capabilityRejected, type GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import type { RoutedNote } from '../lib/notes.js';
import type { Stage, StageFactory } from '../lib/stage.js';

export const AUTO_MODEL = 'gateway-auto';
const MIN_THINKING_BUDGET = 1024;

/** The first hard need `model` fails, or null when it can serve the request. */
export function unmetNeed(model: CatalogModel, req: CanonicalRequest, allow: readonly string[]): string | null {
  if (!model.text) return 'a text API';
  for (const m of req.needs.modalities) if (!model.input.has(m)) return `${m} input`;
  if (req.needs.tools && !model.tools) return 'tool use';
  if (req.needs.reasoning && !model.reasoning) return 'reasoning';
  if (req.needs.speed === 'fast' && !model.speeds.has('fast')) return 'fast mode';
  if (req.inputTokenBound > model.contextWindow) return `a context window of ${req.inputTokenBound} tokens`;
  if (!modelAllowed(allow, model.id)) return "the key's model allowlist";
  return null;
}

/** The config field behind each need `unmetNeed` reports: what the operator changes to meet it. */
function needField(need: string): string {
  if (need === 'a text API') return '`models[].deployments[].api`';
  if (need.endsWith(' input')) return '`models[].input`';
  if (need === 'tool use') return '`models[].tools`';
  if (need === 'reasoning') return '`models[].reasoning`';
  if (need === 'fast mode') return '`models[].speeds`';
  if (need.startsWith('a context window')) return '`models[].contextWindow`';
  return '`keys[].models`';
}

function unknownModel(ctx: RequestContext, value: string): GatewayError {
  return errors.modelUnknown(value, ctx.services.catalog.suggestions(value, ctx.key?.models ?? []));
}

function pickAuto(req: CanonicalRequest, ctx: RequestContext): CatalogModel {
  const allow = ctx.key?.models ?? [];
  const session = req.forward.sessionId;
  // Sessions are pinned per caller (organisation and key): see lib/sticky.ts. A request without a
  // key (none configured) shares one anonymous owner.
  const owner = { org: ctx.key?.org ?? '', keyId: ctx.key?.id ?? '' };
  const sticky = ctx.services.sticky;
  const pinned = session !== undefined && sticky ? ctx.services.catalog.get(sticky.get(owner, session) ?? '') : undefined;
  const pinnedFits = pinned !== undefined && ctx.services.catalog.routerPool.includes(pinned) && unmetNeed(pinned, req, allow) === null;
  // Messages: the spec's rule, except within a session this gateway pinned: Claude Code always asks
  // for thinking and sends its session header, so its second `gateway-auto` turn replays the
  // thinking the pinned model signed, and goes back to that model. Chat clients push
  // `reasoning_details` back on every turn, so there the router keeps routing (deterministically)
  // and the provider verifies the signature.
  if (req.needs.signedThinking && req.source === 'anthropic' && !pinnedFits) throw errors.autoSignedThinking();
  if (pinned && pinnedFits) return pinned;
  const unmet: string[] = [];
  for (const model of ctx.services.catalog.routerPool) {
    const need = unmetNeed(model, req, allow);
    if (need === null) {
      if (session !== undefined) sticky?.set(owner, session, model.id);
      return model;
    }
    unmet.push(need);
  }
  const modality = unmet.find((n) => n.endsWith(' input') && !n.startsWith('text'));
  const needs = [...new Set(unmet)];
  const fields = [...new Set(needs.map(needField))].join(', ');
  if (modality && unmet.every((n) => n.endsWith(' input'))) throw errors.autoNoModelForInput(needs, fields);
  throw errors.autoNoModel(needs, fields);
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
  const auto = req.model === null || req.model === AUTO_MODEL;
  if (auto) {
    model = pickAuto(req, ctx);
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
  };
}

/** The routed request, told to the later stages (encoder, settle) as a note and handed on. */
export function route(): StageFactory<CanonicalRequest, RoutedRequest | RoutedNote> {
  return (): Stage<CanonicalRequest, RoutedRequest | RoutedNote> => ({
    name: 'route',
    step(req, ctx) {
      const routed = routeRequest(req, ctx);
      return [{ note: 'routed', routed }, routed];
    },
  });
}
