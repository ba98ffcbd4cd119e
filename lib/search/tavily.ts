// Tavily Search API: `POST {base}/search` with `Authorization: Bearer tvly-...` and a JSON body
// {query, max_results, search_depth, topic, include_answer, include_raw_content, include_images}.
// Results are `results[]` {title, url, content, score, raw_content?, published_date? (news only)}.
// Errors are {detail: {error: "..."}}: 400, 401 (missing or invalid key), 429 (rate limit),
// 432 / 433 (plan or pay-as-you-go limit reached), 500.
import type { HttpReply, ParseOutcome, RawHit, SearchBackend } from './types.js';
import { failure, joinUrl, kindOfStatus, malformed, parseObject, type Json } from './vendor-http.js';

/** Tavily takes max_results 0..20. */
const MAX_COUNT = 20;

function tavilyError(reply: HttpReply): ParseOutcome {
  const detail = parseObject(reply.body)?.detail;
  const message = typeof detail === 'string' ? detail : typeof (detail as Json | undefined)?.error === 'string' ? ((detail as Json).error as string) : undefined;
  // 432 and 433 are Tavily's "usage limit reached": waiting (or another backend) is the remedy, as for 429
  const kind = reply.status === 432 || reply.status === 433 ? 'rate-limited' : kindOfStatus(reply.status);
  return failure(reply, kind, message);
}

export const tavily: SearchBackend = {
  type: 'tavily',
  defaultBaseUrl: 'https://api.tavily.com',
  buildRequest(config, query, count) {
    const body = { query, max_results: Math.min(count, MAX_COUNT), search_depth: 'basic', topic: 'general', include_answer: false, include_raw_content: false, include_images: false };
    return {
      method: 'POST',
      url: joinUrl(config.baseUrl ?? this.defaultBaseUrl!, '/search'),
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${config.apiKey ?? ''}` },
      body: JSON.stringify(body),
    };
  },
  parseResponse(reply) {
    if (reply.status < 200 || reply.status > 299) return tavilyError(reply);
    const doc = parseObject(reply.body);
    if (!doc) return malformed('the answer is not a JSON object');
    if (!Array.isArray(doc.results)) return malformed('results is not an array');
    const hits: RawHit[] = doc.results.map((r: Json) => ({ url: r?.url, title: r?.title, snippet: r?.content, published: r?.published_date }));
    return { ok: true, hits };
  },
};
