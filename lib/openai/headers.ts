// Header rules shared by the OpenAI-style endpoints (Chat Completions, Responses, transcriptions):
// the JSON content-type check, rate-limit header names and the request-id header.
import type { RateLimitHeaderNames, RequestIdRule } from '../dialects/dialect.js';
import { errors } from '../errors/index.js';

/** `Content-Type: application/json` exactly once (parameters such as a charset allowed). */
export function requireJsonContentType(rawHeaders: readonly string[]): void {
  let value: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 12 || name.toLowerCase() !== 'content-type') continue; // only a name of its length is lower-cased
    if (value !== undefined) throw errors.contentTypeRepeated();
    value = rawHeaders[i + 1]!;
  }
  if (value === undefined) throw errors.contentTypeMissing();
  const media = value.split(';')[0]!.trim().toLowerCase();
  if (media !== 'application/json') {
    throw errors.contentTypeNotJson(value);
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
