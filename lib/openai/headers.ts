// Header rules shared by the OpenAI-style endpoints (Chat Completions, Responses, transcriptions):
// the JSON content-type check, rate-limit header names and the request-id header.
import type { RateLimitHeaderNames, RequestIdRule } from '../dialects/dialect.js';
import { GatewayError } from '../errors.js';

/** `Content-Type: application/json` exactly once (parameters such as a charset allowed). */
export function requireJsonContentType(rawHeaders: readonly string[]): void {
  let value: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() !== 'content-type') continue;
    if (value !== undefined) throw new GatewayError('GW_ERR_CONTENT_TYPE_INVALID', 'content-type: the header appears more than once; send it exactly once.', { param: 'content-type' });
    value = rawHeaders[i + 1]!;
  }
  if (value === undefined) throw new GatewayError('GW_ERR_CONTENT_TYPE_INVALID', 'content-type: missing; send `Content-Type: application/json`.', { param: 'content-type' });
  const media = value.split(';')[0]!.trim().toLowerCase();
  if (media !== 'application/json') {
    throw new GatewayError('GW_ERR_CONTENT_TYPE_INVALID', `content-type: "${value}" is not accepted; send \`Content-Type: application/json\`.`, { param: 'content-type' });
  }
}

/** The rate-limit header names OpenAI clients read (every OpenAI dialect). */
export const OPENAI_RATE_LIMIT_HEADERS: RateLimitHeaderNames = {
  requestsLimit: 'x-ratelimit-limit-requests',
  requestsRemaining: 'x-ratelimit-remaining-requests',
  requestsReset: 'x-ratelimit-reset-requests',
  tokensLimit: 'x-ratelimit-limit-tokens',
  tokensRemaining: 'x-ratelimit-remaining-tokens',
  tokensReset: 'x-ratelimit-reset-tokens',
  reset: 'duration',
};

/** OpenAI clients read the request id from `x-request-id`; an upstream's own id never replaces it. */
export const OPENAI_REQUEST_ID: RequestIdRule = { header: 'x-request-id' };
