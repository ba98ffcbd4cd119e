// Runs a web search against the configured backends (decisions §11): one HTTP call over undici with
// webSearch.timeoutMs for the whole exchange, the answer parsed by the vendor module, and on any
// failure the next backend in config order. Results are normalised (normalise.ts). The outcome is
// typed data, never a throw: the search loop decides what the model and the bill see.
import { request, type Dispatcher } from 'undici';
import { SEARCH_BACKENDS } from './backends.js';
import { normaliseHits } from './normalise.js';
import type { HttpReply, SearchBackendConfig, SearchFailure, SearchResult, WebSearchConfig } from './types.js';

/** A vendor answer larger than this is not a search result page: it counts as malformed. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** One backend's part in a search, in the order they were tried. */
export interface SearchAttempt {
  backend: SearchBackendConfig['type'];
  /** position in webSearch.backends */
  index: number;
  ms: number;
  /** `results`/`empty`, or why the backend gave nothing */
  outcome: 'results' | 'empty' | SearchFailure['kind'];
  failure?: SearchFailure;
}

/**
 * - `results`: a backend answered with at least one usable source (the billable case of §11);
 * - `empty`: a backend answered with none (after dropping unusable URLs): not billed, no fallback,
 *   since a second engine finding nothing either is the likely answer and costs time;
 * - `failed`: every backend failed (`failure` is the last one's), or the caller aborted (`aborted`).
 */
export type SearchOutcome =
  | { kind: 'results'; query: string; backend: SearchBackendConfig['type']; results: SearchResult[]; attempts: SearchAttempt[] }
  | { kind: 'empty'; query: string; backend: SearchBackendConfig['type']; results: []; attempts: SearchAttempt[] }
  | { kind: 'failed'; query: string; failure: SearchFailure; aborted: boolean; results: []; attempts: SearchAttempt[] };

export interface SearchRunnerOptions {
  /** the undici dispatcher (tests, a custom pool); default: undici's global one */
  dispatcher?: Dispatcher;
}

export interface SearchRunner {
  /** false when no backend is configured: the search function is not offered (§11) */
  readonly enabled: boolean;
  search(query: string, signal?: AbortSignal): Promise<SearchOutcome>;
  /** several queries at once, in parallel; outcomes in the order of `queries` */
  searchAll(queries: readonly string[], signal?: AbortSignal): Promise<SearchOutcome[]>;
}

/** The API key must never reach a log line through an echoed vendor message. */
function redact(message: string, key: string | undefined): string {
  return key && key.length >= 4 ? message.split(key).join('[redacted]') : message;
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

type Exchange = { reply: HttpReply } | { failure: SearchFailure };

async function exchange(config: SearchBackendConfig, query: string, ws: WebSearchConfig, signal: AbortSignal | undefined, dispatcher: Dispatcher | undefined): Promise<Exchange> {
  const backend = SEARCH_BACKENDS[config.type];
  const spec = backend.buildRequest(config, query, ws.maxResults);
  const timeout = AbortSignal.timeout(ws.timeoutMs);
  const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const res = await request(spec.url, { method: spec.method, headers: spec.headers, body: spec.body, signal: both, dispatcher });
    const body = await readCapped(res.body);
    if (body === undefined) return { failure: { kind: 'malformed', status: res.statusCode, message: `the answer is larger than ${MAX_BODY_BYTES} bytes` } };
    return { reply: { status: res.statusCode, headers: res.headers, body } };
  } catch (err) {
    if (timeout.aborted && !signal?.aborted) return { failure: { kind: 'timeout', message: `no answer within ${ws.timeoutMs} ms` } };
    const e = err as Error & { code?: string };
    return { failure: { kind: 'network', message: redact(`${e.code ?? e.name}: ${e.message}`, config.apiKey).slice(0, 200) } };
  }
}

export function createSearchRunner(ws: WebSearchConfig | undefined, opts: SearchRunnerOptions = {}): SearchRunner {
  const backends = ws?.backends ?? [];

  async function search(query: string, signal?: AbortSignal): Promise<SearchOutcome> {
    const attempts: SearchAttempt[] = [];
    let last: SearchFailure = { kind: 'network', message: 'no search backend is configured (webSearch.backends)' };
    for (const [index, config] of backends.entries()) {
      if (signal?.aborted) break;
      const started = performance.now();
      const got = await exchange(config, query, ws!, signal, opts.dispatcher);
      const parsed = 'reply' in got ? SEARCH_BACKENDS[config.type].parseResponse(got.reply) : { ok: false as const, failure: got.failure };
      const ms = Math.round(performance.now() - started);
      if (parsed.ok) {
        const results = normaliseHits(parsed.hits, ws!);
        attempts.push({ backend: config.type, index, ms, outcome: results.length > 0 ? 'results' : 'empty' });
        if (results.length > 0) return { kind: 'results', query, backend: config.type, results, attempts };
        return { kind: 'empty', query, backend: config.type, results: [], attempts };
      }
      last = { ...parsed.failure, message: redact(parsed.failure.message, config.apiKey) };
      attempts.push({ backend: config.type, index, ms, outcome: last.kind, failure: last });
    }
    const aborted = signal?.aborted === true;
    if (aborted) last = { kind: 'timeout', message: 'the search was cancelled' };
    return { kind: 'failed', query, failure: last, aborted, results: [], attempts };
  }

  return {
    enabled: backends.length > 0,
    search,
    searchAll: (queries, signal) => Promise.all(queries.map((q) => search(q, signal))),
  };
}
