// The simulated search backend: a loopback HTTP server that answers at each vendor's path in its wire
// format (Brave GET /res/v1/web/search, Tavily and Exa POST /search, SearXNG GET /search?format=json),
// checks the credential the vendor wants, and injects faults. A fault is chosen by (first match):
// the `x-sim-search-fault` header, a `/fault/KIND` prefix of the path (so a backend's baseUrl picks
// it, e.g. http://127.0.0.1:PORT/fault/429), or a `sim-fault:KIND` word in the query.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeNow, listen } from '../listen.js';
import { RequestLog, type SimRequest } from './log.js';
import { duplicateHits, hostileHits, simHits, vendorBody, vendorError, type SearchVendor, type SimHit } from './search-wire.js';

export const SEARCH_FAULTS = ['401', '429', '500', 'stall', 'stall-body', 'malformed', 'empty', 'hostile', 'dupes'] as const;
export type SearchFault = (typeof SEARCH_FAULTS)[number];

/** The wait a 429 asks for, in seconds. */
export const SIM_RETRY_AFTER = 7;
/** The credential that the simulated vendors refuse as invalid (anything else non-empty is accepted). */
export const SIM_BAD_KEY = 'sim-invalid-key';
/** How many results SearXNG answers, whatever was asked (its page size is the instance's). */
const SEARXNG_PAGE = 10;

export interface SimSearch {
  /** http://127.0.0.1:PORT: a backend's baseUrl */
  url: string;
  requests: SimRequest[];
  reset(): void;
  close(): Promise<void>;
}

function isFault(v: unknown): v is SearchFault {
  return typeof v === 'string' && (SEARCH_FAULTS as readonly string[]).includes(v);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** Which vendor a request speaks, by method, path and credential header; undefined: no such route. */
function vendorOf(method: string, path: string, req: IncomingMessage): SearchVendor | undefined {
  if (method === 'GET' && path === '/res/v1/web/search') return 'brave';
  if (method === 'GET' && path === '/search') return 'searxng';
  if (method === 'POST' && path === '/search') return req.headers['x-api-key'] !== undefined ? 'exa' : 'tavily';
  return undefined;
}

interface Asked {
  query: string;
  count: number;
  /** the credential the vendor wants, as sent (undefined: none) */
  credential?: string;
}

function asked(vendor: SearchVendor, url: URL, req: IncomingMessage, body: Record<string, unknown>): Asked {
  const h = (name: string): string | undefined => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
  const bearer = h('authorization')?.match(/^Bearer (.+)$/)?.[1];
  switch (vendor) {
    case 'brave':
      return { query: url.searchParams.get('q') ?? '', count: Number(url.searchParams.get('count') ?? 20), credential: h('x-subscription-token') };
    case 'tavily':
      return { query: String(body.query ?? ''), count: Number(body.max_results ?? 5), credential: bearer };
    case 'exa':
      return { query: String(body.query ?? ''), count: Number(body.numResults ?? 10), credential: h('x-api-key') };
    case 'searxng':
      return { query: url.searchParams.get('q') ?? '', count: SEARXNG_PAGE, credential: 'none needed' };
  }
}

async function handle(req: IncomingMessage, res: ServerResponse, log: RequestLog): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim.invalid');
  const raw = await readBody(req);
  let body: Record<string, unknown> = {};
  try {
    if (raw) body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    /* logged as text below; the vendor check answers 400 */
  }
  const entry: SimRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.search, headers: { ...req.headers }, body: raw ? (Object.keys(body).length ? body : raw) : undefined, at: Date.now() };
  log.add(entry);
  res.once('close', () => {
    if (!res.writableFinished) entry.aborted = true;
  });

  const prefix = url.pathname.match(/^\/fault\/([^/]+)(\/.*)$/);
  const path = prefix ? prefix[2]! : url.pathname;
  const vendor = vendorOf(req.method ?? 'GET', path, req);
  if (!vendor) return send(res, 404, {}, { error: `sim-search: no route ${req.method} ${url.pathname}` });
  const a = asked(vendor, url, req, body);
  if (vendor === 'searxng' && url.searchParams.get('format') !== 'json') return send(res, 403, { 'content-type': 'text/html' }, '<h1>403 Forbidden</h1>');
  if (!a.query) return send(res, 400, {}, vendor === 'tavily' ? { detail: { error: 'query is required' } } : { error: 'query is required' });

  const header = req.headers['x-sim-search-fault'];
  const fault = [header, prefix?.[1], a.query.match(/sim-fault:([\w-]+)/)?.[1]].find(isFault);
  if (fault === '401' || !a.credential || a.credential === SIM_BAD_KEY) {
    const e = vendorError(vendor, 401, SIM_RETRY_AFTER);
    return send(res, e.status, e.headers, e.body);
  }
  if (fault === '429' || fault === '500') {
    const e = vendorError(vendor, Number(fault), SIM_RETRY_AFTER);
    return send(res, e.status, e.headers, e.body);
  }
  // a stall holds the answer until the caller gives up and closes the connection
  if (fault === 'stall') return;
  if (fault === 'stall-body') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"results": [');
    return;
  }
  if (fault === 'malformed') return send(res, 200, {}, '{"results": [{"url": "https://site1.example/", "title": "cut o');

  const count = Math.max(0, Math.min(Number.isFinite(a.count) ? a.count : 5, 20));
  // the fault word is an instruction to the sim, not part of what the results are about
  const topic = a.query.replace(/\s*sim-fault:[\w-]+/g, '').trim() || a.query;
  const hits: SimHit[] = fault === 'empty' ? [] : fault === 'hostile' ? hostileHits() : fault === 'dupes' ? duplicateHits(topic) : simHits(topic, count);
  const limits: Record<string, string> = vendor === 'brave' ? { 'x-ratelimit-limit': '1, 15000', 'x-ratelimit-policy': '1;w=1, 15000;w=2592000', 'x-ratelimit-remaining': '0, 14999', 'x-ratelimit-reset': '1, 1209600' } : {};
  send(res, 200, limits, vendorBody(vendor, topic, hits));
}

export async function startSimSearch(opts: { host?: string; port?: number } = {}): Promise<SimSearch> {
  const log = new RequestLog(1000);
  const server: Server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    handle(req, res, log).catch(() => res.destroy());
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  const url = await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1');
  let closing: Promise<void> | undefined;
  return {
    url,
    requests: log.entries,
    reset: () => {
      log.clear();
    },
    close: () => (closing ??= closeNow(server)),
  };
}
