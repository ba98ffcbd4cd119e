// From a vendor's raw hits to what the gateway hands on: every hit with a usable http(s) URL, cleaned
// text, the snippet cut to webSearch.snippetChars, one result per page (the first, the vendor's best
// ranked), at most webSearch.maxResults, each with an id derived from its page.
import { createHash } from 'node:crypto';
import { cleanText, cutText, safeUrl, urlKey } from './sanitize.js';
import type { RawHit, SearchResult } from './types.js';

/** A title is a label, not a text: longer ones are cut. */
const TITLE_CHARS = 200;

/** `ws_` and ten base-32 characters from the page's URL key: the same page has the same id in every round. */
export function resultId(key: string): string {
  const digest = createHash('sha256').update(key).digest();
  let n = digest.readBigUInt64BE(0);
  let out = '';
  for (let i = 0; i < 10; i++) {
    out += 'abcdefghijklmnopqrstuvwxyz234567'[Number(n & 31n)];
    n >>= 5n;
  }
  return `ws_${out}`;
}

export interface NormaliseOptions {
  maxResults: number;
  snippetChars: number;
}

export function normaliseHits(hits: readonly RawHit[], opts: NormaliseOptions): SearchResult[] {
  const out: SearchResult[] = [];
  const seen = new Set<string>();
  for (const hit of hits) {
    if (out.length >= opts.maxResults) break;
    const url = safeUrl(hit.url);
    if (!url) continue;
    const key = urlKey(url);
    if (seen.has(key)) continue;
    seen.add(key);
    const title = cutText(cleanText(hit.title), TITLE_CHARS) || url.host;
    const result: SearchResult = { id: resultId(key), url: url.href, title, snippet: cutText(cleanText(hit.snippet), opts.snippetChars) };
    const published = cleanText(hit.published);
    if (published) result.published = cutText(published, 40);
    out.push(result);
  }
  return out;
}
