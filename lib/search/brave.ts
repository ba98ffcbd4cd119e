// Brave Search API, web search: `GET {base}/res/v1/web/search?q=&count=` with the key in
// `X-Subscription-Token`. Results are `web.results[]` {title, url, description, page_age?, age?};
// `description` carries <strong> highlighting. Errors are {type: "ErrorResponse", error: {id, status,
// code, detail}}; an invalid key answers 401 or 422 with code SUBSCRIPTION_TOKEN_INVALID. Every answer
// carries X-RateLimit-Limit / -Policy / -Remaining / -Reset, comma lists with one entry per window
// (per second first, then per month); a 429 says when to retry in X-RateLimit-Reset.
import type { HttpReply, ParseOutcome, RawHit, SearchBackend } from './types.js';
import { failure, header, joinUrl, kindOfStatus, malformed, parseObject, type Json } from './vendor-http.js';

/** Brave takes at most 20 results a page. */
const MAX_COUNT = 20;

function braveError(reply: HttpReply): ParseOutcome {
  const err = parseObject(reply.body)?.error as Json | undefined;
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const detail = typeof err?.detail === 'string' ? err.detail : undefined;
  const kind = code === 'SUBSCRIPTION_TOKEN_INVALID' ? 'auth' : kindOfStatus(reply.status);
  const out = failure(reply, kind, [code, detail].filter(Boolean).join(' ') || undefined);
  if (kind === 'rate-limited' && out.failure.retryAfterSeconds === undefined) {
    // the first window still at zero is the one to wait for
    const remaining = (header(reply, 'x-ratelimit-remaining') ?? '').split(',').map((s) => Number(s.trim()));
    const reset = (header(reply, 'x-ratelimit-reset') ?? '').split(',').map((s) => Number(s.trim()));
    const i = remaining.findIndex((r) => r === 0);
    const wait = reset[i >= 0 ? i : 0];
    if (wait !== undefined && Number.isFinite(wait)) out.failure.retryAfterSeconds = wait;
  }
  return out;
}

export const brave: SearchBackend = {
  type: 'brave',
  defaultBaseUrl: 'https://api.search.brave.com',
  buildRequest(config, query, count) {
    return {
      method: 'GET',
      url: joinUrl(config.baseUrl ?? this.defaultBaseUrl!, '/res/v1/web/search', { q: query, count: String(Math.min(count, MAX_COUNT)) }),
      headers: { accept: 'application/json', 'x-subscription-token': config.apiKey ?? '' },
    };
  },
  parseResponse(reply) {
    if (reply.status < 200 || reply.status > 299) return braveError(reply);
    const doc = parseObject(reply.body);
    if (!doc) return malformed('the answer is not a JSON object');
    // an answer with no web section (a query Brave found nothing for) has no hits
    if (doc.web === undefined) return { ok: true, hits: [] };
    const results = (doc.web as Json | null)?.results;
    if (!Array.isArray(results)) return malformed('web.results is not an array');
    const hits: RawHit[] = results.map((r: Json) => ({ url: r?.url, title: r?.title, snippet: r?.description, published: r?.page_age }));
    return { ok: true, hits };
  },
};
