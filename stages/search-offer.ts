// search-offer: RoutedRequest → RoutedRequest. Where the gateway runs web search itself (decisions
// §11) — a Responses request with `web_search` / `web_search_preview`, or a Messages request with a
// hosted `web_search_*` tool on a model none of whose deployments speaks Messages (an Anthropic
// deployment runs its hosted tool natively) — the client's body is given the `web_search(query)`
// function in place of the hosted tool (the client dialect's SearchTurns) and validated again, so
// every translator offers it to the upstream model in its own dialect. The request then carries the
// loop's limits (`search`), which the reservation covers, and goes on as a `search` note for the
// search loop. No backend configured: nothing changes (the function is not offered, nothing is charged).
import type { CanonicalRequest, RoutedRequest, SearchPlan } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import { dialectFor, searchTurns } from '../lib/dialects/index.js';
import type { SearchNote } from '../lib/notes.js';
import { feedTokenBound, SEARCH_FUNCTION } from '../lib/search/feed.js';
import type { Stage, StageFactory } from '../lib/stage.js';

/** The loop's limits: Messages' `max_uses` (and a Responses `max_tool_calls`) bound the searches too. */
function planFor(req: CanonicalRequest, ctx: RequestContext): SearchPlan {
  const ws = ctx.config.webSearch!;
  const asked = req.hostedToolUses > 0 ? req.hostedToolUses : ws.maxSearches;
  const maxSearches = Math.min(ws.maxSearches, asked);
  return { maxSearches, maxRounds: ws.maxRounds, feedTokens: maxSearches * feedTokenBound(ws) };
}

/** The routed request with the search function offered, or null when the gateway runs no search for it. */
export function offerSearch(routed: RoutedRequest, ctx: RequestContext): (RoutedRequest & { search: SearchPlan }) | null {
  const req = routed.request;
  const turns = searchTurns[req.source];
  if (turns === undefined || ctx.services.search?.enabled !== true) return null;
  if (turns.hostedSearches(req.body) === 0) return null;
  const own = dialectFor(req.source).upstream?.api;
  // a deployment of the client's own API that runs the hosted tool itself (and bills it as it reports it)
  if (turns.hostedNatively && routed.deployments.some((d) => d.api === own)) return null;
  const body = turns.offer(req.body, SEARCH_FUNCTION);
  if (body === null) return null;
  const validate = dialectFor(req.source).validate!;
  const offered = validate(body, ctx, { countTokens: false });
  return { ...routed, request: offered, search: planFor(req, ctx) };
}

export function searchOffer(): StageFactory<RoutedRequest, RoutedRequest | SearchNote> {
  return (): Stage<RoutedRequest, RoutedRequest | SearchNote> => ({
    name: 'search-offer',
    step(routed, ctx) {
      const offered = offerSearch(routed, ctx);
      if (offered === null) return [routed];
      return [{ note: 'search', routed: offered }, offered];
    },
  });
}
