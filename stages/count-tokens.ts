// count_tokens: after the request validated (auth, version, scope, model, semantics), always 404:
// authoritative counting is unavailable and a guessed count would be wrong. No provider call.
import type { RoutedRequest } from '../lib/chunks.js';
import { errors } from '../lib/errors/index.js';
import type { Stage, StageFactory } from '../lib/stage.js';

export function countTokensUnavailable(): StageFactory<RoutedRequest, string> {
  return (): Stage<RoutedRequest, string> => ({
    name: 'count-tokens',
    step(routed) {
      throw errors.countTokensUnavailable(routed.modelId);
    },
  });
}
