// The Messages `gateway` object: unlike Chat and Responses, Messages adds it only when there is
// something to say (auto-routed, or max_tokens capped).
import type { JsonObject } from '../../chunks.js';
import type { RequestContext } from '../../context.js';
import { gatewayObject } from '../../gateway-info.js';

export function messagesGatewayInfo(ctx: RequestContext): JsonObject | undefined {
  const r = ctx.routed;
  if (!r || (!r.routed && r.maxTokensCappedTo === null)) return undefined;
  const out = gatewayObject(ctx);
  if (r.maxTokensCappedTo !== null) out.max_tokens_capped_to = r.maxTokensCappedTo;
  return out;
}
