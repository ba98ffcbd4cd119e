// The Messages `gateway` object: unlike Chat and Responses, Messages adds it only when there is
// something to say (auto-routed, or max_tokens capped).
import type { JsonObject } from '../../chunks.js';
import type { EncoderInput } from '../../encoder-input.js';
import { gatewayObject } from '../../gateway-info.js';

export function messagesGatewayInfo(input: Pick<EncoderInput, 'routed'>): JsonObject | undefined {
  const r = input.routed;
  if (!r || (!r.routed && r.maxTokensCappedTo === null)) return undefined;
  const out = gatewayObject(input);
  if (r.maxTokensCappedTo !== null) out.max_tokens_capped_to = r.maxTokensCappedTo;
  return out;
}
