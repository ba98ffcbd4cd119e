// SearXNG (self-hosted metasearch): `GET {base}/search?q=&format=json`. The JSON format must be enabled
// in the instance's settings.yml (`search.formats`), else it answers 403; its bot limiter answers 429.
// Results are `results[]` {url, title, content, engine, engines, score, publishedDate (null or ISO),
// category}. There is no key and no host of its own: baseUrl is required. The page size is the
// instance's (about 10 to 20); the normaliser caps to webSearch.maxResults.
import type { RawHit, SearchBackend } from './types.js';
import { failure, joinUrl, kindOfStatus, malformed, parseObject, type Json } from './vendor-http.js';

export const searxng: SearchBackend = {
  type: 'searxng',
  buildRequest(config, query) {
    const headers: Record<string, string> = { accept: 'application/json' };
    // an instance behind a proxy that wants a token gets it as a bearer (SearXNG itself has no auth)
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    return { method: 'GET', url: joinUrl(config.baseUrl ?? '', '/search', { q: query, format: 'json' }), headers };
  },
  parseResponse(reply) {
    if (reply.status < 200 || reply.status > 299) {
      const why = reply.status === 403 ? 'the instance does not enable format=json (search.formats in settings.yml)' : undefined;
      return failure(reply, kindOfStatus(reply.status), why);
    }
    const doc = parseObject(reply.body);
    if (!doc) return malformed('the answer is not a JSON object');
    if (!Array.isArray(doc.results)) return malformed('results is not an array');
    const hits: RawHit[] = doc.results.map((r: Json) => ({ url: r?.url, title: r?.title, snippet: r?.content, published: r?.publishedDate }));
    return { ok: true, hits };
  },
};
