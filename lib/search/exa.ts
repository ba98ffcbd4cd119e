// Exa Search API: `POST {base}/search` with `x-api-key` and a JSON body {query, type, numResults,
// contents: {highlights: {maxCharacters}}}. Results are `results[]` {id, url, title (may be null),
// publishedDate?, author?, score?, text?, highlights?[], summary?}. Errors are {requestId, error, tag}:
// 400, 401/403 (INVALID_API_KEY ...), 429, 5xx.
import type { HttpReply, ParseOutcome, RawHit, SearchBackend } from './types.js';
import { failure, joinUrl, kindOfStatus, malformed, parseObject, type Json } from './vendor-http.js';

/** Exa's plans allow up to 100 results; 25 is plenty and keeps the answer small. */
const MAX_COUNT = 25;
/** highlight text asked for per result; the normaliser cuts to webSearch.snippetChars afterwards */
const HIGHLIGHT_CHARS = 2000;

function exaError(reply: HttpReply): ParseOutcome {
  const doc = parseObject(reply.body);
  const message = [doc?.tag, doc?.error].filter((v): v is string => typeof v === 'string').join(' ');
  return failure(reply, kindOfStatus(reply.status), message || undefined);
}

function snippetOf(r: Json): unknown {
  if (Array.isArray(r.highlights) && r.highlights.length > 0) return r.highlights.filter((h) => typeof h === 'string').join(' … ');
  if (typeof r.summary === 'string') return r.summary;
  return r.text;
}

export const exa: SearchBackend = {
  type: 'exa',
  defaultBaseUrl: 'https://api.exa.ai',
  buildRequest(config, query, count) {
    const body = { query, type: 'auto', numResults: Math.min(count, MAX_COUNT), contents: { highlights: { maxCharacters: HIGHLIGHT_CHARS } } };
    return {
      method: 'POST',
      url: joinUrl(config.baseUrl ?? this.defaultBaseUrl!, '/search'),
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': config.apiKey ?? '' },
      body: JSON.stringify(body),
    };
  },
  parseResponse(reply) {
    if (reply.status < 200 || reply.status > 299) return exaError(reply);
    const doc = parseObject(reply.body);
    if (!doc) return malformed('the answer is not a JSON object');
    if (!Array.isArray(doc.results)) return malformed('results is not an array');
    const hits: RawHit[] = doc.results.map((r: Json) => ({ url: r?.url, title: r?.title, snippet: r ? snippetOf(r) : undefined, published: r?.publishedDate }));
    return { ok: true, hits };
  },
};
