// The `gateway` object the gateway adds to answers: routing facts (and, on Responses, the cost).
import type { JsonObject } from './chunks.js';
import type { EncoderInput } from './encoder-input.js';

/** `{routed, routed_model, routing_latency_ms}`: always present on Chat Completions and Responses. */
export function gatewayObject(input: Pick<EncoderInput, 'routed'>): JsonObject {
  const r = input.routed;
  return {
    routed: r?.routed ?? false,
    routed_model: r?.routed ? r.modelId : null,
    routing_latency_ms: r?.routed ? r.routingLatencyMs : null,
  };
}
