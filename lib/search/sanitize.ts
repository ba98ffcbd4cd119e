// A search result's text and URL are untrusted (decisions §11): they come from any web page. Before the
// gateway hands them on, markup is removed (the text is plain text, never HTML), characters that could
// pass for citation markers or hide text are dropped, and only http(s) URLs survive.

/**
 * Characters a citation marker may be made of, so result text can never forge one: lenticular and
 * white brackets (OpenAI's 【1†source】), the dagger, and the Private Use Area (where OpenAI puts its
 * \uE200 cite-turn markers and where the gateway's own markers may live).
 */
export const MARKER_CHARS = /[\u3010\u3011\u3014-\u301B\u27E6-\u27EF\u2020\u2021\uE000-\uF8FF]|[\u{F0000}-\u{10FFFF}]/gu;

/** Invisible and direction-changing characters: they hide text from a reader or reorder it. */
const INVISIBLE = /[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
/** C0/C1 controls: newlines included, so a snippet cannot fake the structure of what surrounds it. */
const CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8}|#39);/gi, (m, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return codePoint(parseInt(lower.slice(2), 16), m);
    if (lower.startsWith('#')) return codePoint(parseInt(lower.slice(1), 10), m);
    return ENTITIES[lower] ?? m;
  });
}

function codePoint(n: number, fallback: string): string {
  return Number.isInteger(n) && n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : fallback;
}

function stripTags(s: string): string {
  return s
    .replace(/<(script|style|iframe|noscript|template)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    // inline formatting (Brave's <strong> highlights) sits inside words and punctuation: no space for it
    .replace(/<\/?(a|abbr|b|bdi|bdo|cite|code|em|i|kbd|mark|q|s|small|span|strong|sub|sup|u|wbr)\b[^<>]*>/gi, '')
    .replace(/<\/?[a-z!][^<>]*>/gi, ' ')
    .replace(/<(script|style|iframe|noscript|template)\b[\s\S]*$/gi, ' '); // an element never closed
}

/** Plain, single-line text: markup (also entity-escaped markup) removed, markers and hidden characters dropped. */
export function cleanText(value: unknown): string {
  if (typeof value !== 'string') return '';
  // entity-escaped markup turns into markup when decoded, so strip, decode, strip again
  let s = stripTags(decodeEntities(stripTags(value)));
  s = s.replace(/[<>]/g, ' ').replace(MARKER_CHARS, '').replace(INVISIBLE, '').replace(CONTROLS, ' ');
  return s.replace(/\s+/g, ' ').trim();
}

/** Cut to at most `max` code points, at a word boundary when one is near, with an ellipsis. */
export function cutText(s: string, max: number): string {
  const points = Array.from(s);
  if (points.length <= max) return s;
  let cut = points.slice(0, Math.max(0, max - 1)).join('');
  const space = cut.lastIndexOf(' ');
  if (space > cut.length * 0.8) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

const MAX_URL = 2048;

/** The URL when it is an absolute http(s) URL without credentials, else undefined. */
export function safeUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string' || value.length > MAX_URL) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || !url.hostname) return undefined;
  return url;
}

/** Tracking parameters that name the same page under another URL. */
const TRACKING = /^(utm_[a-z]+|gclid|fbclid|msclkid|ref_src)$/i;

/**
 * The key two results are the same page by: scheme and host lower case (the URL parser does it), no
 * fragment, no tracking parameters, no `www.`, no trailing slash, and http and https taken as one.
 */
export function urlKey(url: URL): string {
  const u = new URL(url.href);
  u.hash = '';
  for (const k of [...u.searchParams.keys()]) if (TRACKING.test(k)) u.searchParams.delete(k);
  const host = u.host.replace(/^www\./, '');
  const path = u.pathname.replace(/\/+$/, '');
  return `${host}${path}${u.search}`;
}
