// count_tokens: after the request validated (auth, version, scope, model, semantics), always 404:
// authoritative counting is unavailable and a guessed count would be wrong. No provider call.
import type { RoutedRequest } from '../lib/chunks.js';
import { GatewayError } from '../lib/errors.js';
import type { Stage, StageFactory } from '../lib/stage.js';

export function countTokensUnavailable(): StageFactory<RoutedRequest, string> {
  return (): Stage<RoutedRequest, string> => ({
    name: 'count-tokens',
    step(routed) {
      throw new GatewayError(
        'GW_ERR_COUNT_TOKENS_UNAVAILABLE',
        `Token counting is not available on this gateway for model ${routed.modelId}: no authoritative count exists, and a guessed count would mislead. The request is valid; nothing was counted, no provider was called and nothing was charged. Estimate locally, or send the request to /v1/messages and read usage.input_tokens.`,
      );
    },
  });
}
