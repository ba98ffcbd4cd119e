// gateway-auto (the route stage's auto half): hard constraints first, then the learned router decides
// among the candidates that meet every need, then the session's pin is weighed.
//
// 1. Candidates: the router pool (`router.candidates`) filtered by the request's hard needs
//    (modalities, tools, reasoning, speed, context window, search-only, the key's allowlist). None
//    left: a 400 naming every unmet need and the config field behind it.
// 2. The router reads the recent turns (the client dialect's conversation reader, bounded) and
//    predicts each candidate's quality; the choice is the cheapest candidate within the policy's
//    target of the best (`router.target`, overridden per organisation by `orgs[].router.target`).
//    Costs are expected costs (lib/router/cost.ts), cache-aware.
// 3. A session (`x-claude-code-session-id`, Responses `session_id`) pinned within
//    `router.stickySeconds` stays on its model while it still meets every need: never moved inside a
//    tool loop or with signed thinking in its history, otherwise moved only to the cheapest other
//    candidate within target, and only when that saves more than the warm prompt cache it would
//    lose (the cache counts as warm for `router.cacheSeconds`; the pinned model's expected cost
//    prices that cached input at the cache-read rate).
// The decision (top candidates with predicted quality and cost, and why) rides on the routed request
// to the log line and the usage record.
import type { CanonicalRequest, RoutingCandidate, RoutingDecision } from '../lib/chunks.js';
import type { CatalogModel } from '../lib/catalog.js';
import { modelAllowed } from '../lib/catalog.js';
import type { Config } from '../lib/config.js';
import type { RequestContext } from '../lib/context.js';
import { conversationReaders, type ConversationView } from '../lib/dialects/index.js';
import { errors } from '../lib/errors/index.js';
import { cacheLoss, expectedCost, expectedOutputTokens, type CostBasis } from '../lib/router/cost.js';
import type { RankedCandidate, RouterCandidate, RouterDecision, RouterInput } from '../lib/router/router-api.js';
import { CONVERSATION_LIMITS } from '../lib/router/turn-budget.js';
import type { StickyOwner } from '../lib/sticky.js';

/** candidates shown in the decision record (log line, usage record), besides the served one */
const SHOWN = 5;

/** The first hard need `model` fails, or null when it can serve the request. */
export function unmetNeed(model: CatalogModel, req: CanonicalRequest, allow: readonly string[]): string | null {
  if (!model.text) return 'a text API';
  for (const m of req.needs.modalities) if (!model.input.has(m)) return `${m} input`;
  if (req.needs.tools && !model.tools) return 'tool use';
  if (req.needs.reasoning && !model.reasoning) return 'reasoning';
  if (req.needs.speed === 'fast' && !model.speeds.has('fast')) return 'fast mode';
  if (req.inputTokenBound > model.contextWindow) return `a context window of ${req.inputTokenBound} tokens`;
  if (req.needs.searchOnly && !model.webSearch) return 'web search';
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
  if (need === 'web search') return '`models[].webSearch`';
  return '`keys[].models`';
}

/** The pool's models that meet every need; throws the guided 400 when none does. */
function eligible(req: CanonicalRequest, pool: readonly CatalogModel[], allow: readonly string[]): CatalogModel[] {
  const fit: CatalogModel[] = [];
  const unmet: string[] = [];
  for (const model of pool) {
    const need = unmetNeed(model, req, allow);
    if (need === null) fit.push(model);
    else unmet.push(need);
  }
  if (fit.length > 0) return fit;
  const needs = [...new Set(unmet)];
  const fields = [...new Set(needs.map(needField))].join(', ');
  const modality = unmet.find((n) => n.endsWith(' input') && !n.startsWith('text'));
  if (modality && unmet.every((n) => n.endsWith(' input'))) throw errors.autoNoModelForInput(needs, fields);
  throw errors.autoNoModel(needs, fields);
}

/** Per configuration (frozen, replaced on reload): each organisation's own target. */
const orgTargets = new WeakMap<Config, ReadonlyMap<string, number>>();

/** The quality target of the caller's organisation: `orgs[].router.target`, else `router.target`. */
export function targetFor(config: Config, org: string | undefined): number {
  let targets = orgTargets.get(config);
  if (targets === undefined) {
    const built = new Map<string, number>();
    for (const o of config.orgs ?? []) if (o.router?.target !== undefined) built.set(o.id, o.router.target);
    orgTargets.set(config, built);
    targets = built;
  }
  return (org !== undefined ? targets.get(org) : undefined) ?? config.router.target;
}

/** What the router reads: the client dialect's view of the recent turns; a plain view where a dialect has none. */
function conversationOf(req: CanonicalRequest): ConversationView {
  const read = conversationReaders[req.source];
  return read !== undefined ? read(req, CONVERSATION_LIMITS) : { turns: [], tools: 0, effort: null, attachments: 0, toolLoop: false };
}

const usd = (v: number): number => Number(v.toPrecision(4));

/** The cheapest candidate but `pinned` whose quality is within `target` of the best (ties: quality, then id). */
function cheapestOther(ranked: RouterDecision['ranked'], pinned: string, target: number): RankedCandidate | undefined {
  const bar = (ranked[0]?.quality ?? 0) * target;
  let best: RankedCandidate | undefined;
  for (const c of ranked) {
    if (c.id === pinned || c.quality < bar) continue;
    if (best === undefined || c.cost < best.cost || (c.cost === best.cost && (c.quality > best.quality || (c.quality === best.quality && c.id < best.id)))) best = c;
  }
  return best;
}

export interface AutoChoice {
  model: CatalogModel;
  routing: RoutingDecision;
}

export function pickAuto(req: CanonicalRequest, ctx: RequestContext): AutoChoice {
  const { catalog, sticky, router } = ctx.services;
  const policy = ctx.config.router;
  const allow = ctx.key?.models ?? [];
  const session = policy.stickySeconds > 0 ? req.forward.sessionId : undefined;
  // Sessions are pinned per caller (organisation and key): see lib/sticky.ts. A request without a
  // key (none configured) shares one anonymous owner.
  const owner: StickyOwner = { org: ctx.key?.org ?? '', keyId: ctx.key?.id ?? '' };
  const now = Date.now();
  const pin = session !== undefined ? sticky?.get(owner, session) : undefined;
  const pinAge = pin !== undefined ? now - pin.at : Infinity;
  const pinnedModel = pin !== undefined && pinAge <= policy.stickySeconds * 1000 ? catalog.get(pin.model) : undefined;
  const pinned = pinnedModel !== undefined && catalog.routerPool.includes(pinnedModel) && unmetNeed(pinnedModel, req, allow) === null ? pinnedModel : undefined;
  // Messages: the spec's rule, except within a session this gateway pinned: Claude Code always asks
  // for thinking and sends its session header, so its second `gateway-auto` turn replays the
  // thinking the pinned model signed, and goes back to that model. Chat clients push
  // `reasoning_details` back on every turn, so there the router keeps routing (deterministically)
  // and the provider verifies the signature.
  if (req.needs.signedThinking && req.source === 'anthropic' && pinned === undefined) throw errors.autoSignedThinking();

  const fit = eligible(req, catalog.routerPool, allow);
  const view = conversationOf(req);
  const input: RouterInput = { turns: view.turns, tools: view.tools, effort: view.effort, attachments: view.attachments, inputTokens: req.inputTokenBound };
  const basis: CostBasis = { inputTokens: req.inputTokenBound, outputTokens: expectedOutputTokens(view.effort, view.turns, req.maxTokens) };
  // the pinned model's prompt cache is warm for `cacheSeconds` after the session's last request
  const cached = pinned !== undefined && pinAge <= policy.cacheSeconds * 1000 ? pin!.inputTokens : 0;
  const candidates: RouterCandidate[] = fit.map((m) => ({
    id: m.id,
    quality: m.quality,
    cost: expectedCost(m.pricing, m.maxOutputTokens, basis, m === pinned ? cached : 0),
  }));
  const target = targetFor(ctx.config, ctx.key?.org);
  const decision = router.decide(input, candidates, target);
  const choice = fit.find((m) => m.id === decision.model)!;

  let model = choice;
  let reason: RoutingDecision['reason'] = 'router';
  let saving: number | undefined;
  let loss: number | undefined;
  if (pinned !== undefined) {
    model = pinned;
    reason = 'sticky';
    if (view.toolLoop) reason = 'tool-loop';
    else if (req.needs.signedThinking) reason = 'signed-thinking';
    else {
      // the best other model within target (the choice itself, unless that is the pinned model)
      const other = cheapestOther(decision.ranked, pinned.id, target);
      if (other !== undefined) {
        const pinnedCost = candidates.find((c) => c.id === pinned.id)!.cost;
        loss = cacheLoss(pinned.pricing, basis, cached);
        // what moving saves against the pinned model without its cache, and the cache it loses
        saving = pinnedCost + loss - other.cost;
        if (saving > loss) {
          model = fit.find((m) => m.id === other.id)!;
          reason = 'moved';
        }
      }
    }
  }
  if (session !== undefined) sticky?.set(owner, session, { model: model.id, at: now, inputTokens: req.inputTokenBound });

  // the best few, and the served model wherever it ranks
  const top = decision.ranked.filter((c, i) => i < SHOWN || c.id === model.id);
  const shown: RoutingCandidate[] = top.map((c) => ({ id: c.id, quality: Number(c.quality.toFixed(4)), costUsd: usd(c.cost) }));
  const routing: RoutingDecision = {
    reason,
    target,
    choice: choice.id,
    ...(pinned !== undefined ? { pinned: pinned.id } : {}),
    ...(saving !== undefined ? { savingUsd: usd(saving), cacheLossUsd: usd(loss!) } : {}),
    candidates: shown,
    eligible: fit.length,
  };
  return { model, routing };
}
