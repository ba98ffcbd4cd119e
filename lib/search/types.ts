// The shapes every search backend shares (decisions §11): what the gateway asks, the HTTP exchange a
// backend module describes as plain data (so its builder and parser stay pure and testable without a
// socket), and what a call to one backend came to.

/** One backend of the `webSearch.backends` config list. */
export interface SearchBackendConfig {
  type: 'brave' | 'tavily' | 'exa' | 'searxng';
  /** overrides the vendor's host (and may add a path prefix); required for searxng, which has none */
  baseUrl?: string;
  apiKey?: string;
  /** answered by the simulated backend the gateway starts on loopback (lib/sim/search-server.ts) */
  simulated?: boolean;
}

/** The `webSearch` config block, defaults filled in by the schema. */
export interface WebSearchConfig {
  backends: SearchBackendConfig[];
  maxResults: number;
  maxSearches: number;
  maxRounds: number;
  snippetChars: number;
  timeoutMs: number;
  /** the secret Messages web-search blocks are sealed with (lib/search/seal.ts); absent: a random key per process */
  sealKey?: string;
}

/** A search result as the gateway hands it on: text stripped of markup and marker characters. */
export interface SearchResult {
  /** stable for a URL (a hash of its normalised form): the same page gets the same id in every round */
  id: string;
  url: string;
  title: string;
  snippet: string;
  /** the publication date as the backend gave it (ISO 8601 where the vendor uses it), when it gave one */
  published?: string;
}

/** One result as a vendor's JSON carries it, before any cleaning (the text is untrusted). */
export interface RawHit {
  url: unknown;
  title: unknown;
  snippet: unknown;
  published?: unknown;
}

/** A request described as data: the runner sends it, a test compares it with the vendor's docs. */
export interface HttpRequestSpec {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A vendor's answer as the runner read it. */
export interface HttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Why a backend call gave no usable answer; every kind makes the runner try the next backend. */
export type SearchFailureKind =
  | 'auth' // 401/403 (Brave also: 422 SUBSCRIPTION_TOKEN_INVALID): the key is missing, wrong or not entitled
  | 'rate-limited' // 429 (and Tavily's 432/433 plan limits)
  | 'upstream' // 5xx
  | 'rejected' // any other 4xx: the vendor refused the request
  | 'malformed' // a 2xx whose body is not the vendor's JSON shape
  | 'timeout' // no complete answer within webSearch.timeoutMs
  | 'network'; // connection refused, reset, DNS ...

export interface SearchFailure {
  kind: SearchFailureKind;
  status?: number;
  /** seconds the vendor asked to wait (429 retry-after, or Brave's X-RateLimit-Reset) */
  retryAfterSeconds?: number;
  /** a short description for logs; never holds the API key */
  message: string;
}

/** What parsing a vendor's answer gives: its hits, or a failure. */
export type ParseOutcome = { ok: true; hits: RawHit[] } | { ok: false; failure: SearchFailure };

/** One vendor's API: a pure request builder and a pure response parser. */
export interface SearchBackend {
  type: SearchBackendConfig['type'];
  /** the vendor's host, used when the config gives no baseUrl (undefined: baseUrl is required) */
  defaultBaseUrl?: string;
  /** `count` is how many results to ask for (the vendor may cap it) */
  buildRequest(config: SearchBackendConfig, query: string, count: number): HttpRequestSpec;
  parseResponse(reply: HttpReply): ParseOutcome;
}
