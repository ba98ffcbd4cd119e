// Header rules shared by the OpenAI-style endpoints (Chat Completions, Responses, transcriptions):
// the JSON content-type check, rate-limit header names and the request-id header.
import type { RateLimitHeaderNames, RequestIdRule } from '../dialects/dialect.js';
import { errors } from '../errors/index.js';

/** A header name is `content-type` in any case: the two spellings clients send are compared as they are. */
function isContentType(name: string): boolean {
  return name.length === 12 && (name === 'content-type' || name === 'Content-Type' || name.toLowerCase() === 'content-type');
}

/**
 * The media type of a Content-Type value is application/json, in any case, with whitespace around it
 * and any parameters after a `;`. The value clients send almost always is exactly that: it is taken
 * as it is (splitting, trimming and lower-casing it cost more than the rest of the check).
 */
function isJsonMedia(value: string): boolean {
  if (value === 'application/json') return true;
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/** `Content-Type: application/json` exactly once (parameters such as a charset allowed). */
export function requireJsonContentType(rawHeaders: readonly string[]): void {
  let value: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!isContentType(rawHeaders[i]!)) continue;
    if (value !== undefined) throw errors.contentTypeRepeated();
    value = rawHeaders[i + 1]!;
  }
  if (value === undefined) throw errors.contentTypeMissing();
  if (!isJsonMedia(value)) throw errors.contentTypeNotJson(value);
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
