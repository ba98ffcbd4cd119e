// validate: RawBody → CanonicalRequest, with the client dialect's validator. Runs before any
// provider work; its errors name the exact field path and are never charged.
import type { CanonicalRequest, RawBody } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import type { Stage, StageFactory } from '../lib/stage.js';

export type Validator = (raw: RawBody, ctx: RequestContext) => CanonicalRequest;

export function validate(validator: Validator): StageFactory<RawBody, CanonicalRequest> {
  // the stage holds nothing of its own per request: one for every request
  const stage: Stage<RawBody, CanonicalRequest> = {
    name: 'validate',
    step: (raw, ctx) => {
      const request = validator(raw, ctx);
      if (raw.raw !== undefined && request.body === raw.value) request.raw = raw.raw;
      return [request];
    },
  };
  return () => stage;
}
