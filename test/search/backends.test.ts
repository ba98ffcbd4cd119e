// Each backend speaks its vendor's documented HTTP API (decisions §11): the request the runner sends
// over a real loopback socket (method, path, headers, query or body), and the parsing of answers in
// the vendor's recorded shape, through the simulated search backend.
import t from 'tap';
import { brave, createSearchRunner, exa, searxng, tavily, type SearchOutcome } from '../../lib/search/index.js';
import { startSimSearch, type SimSearch } from '../../lib/sim/search-server.js';
import { vendorBackends, wsConfig } from './helpers.js';

let sim: SimSearch;
t.before(async () => {
  sim = await startSimSearch();
});
t.teardown(() => sim.close());

async function once(type: 'brave' | 'tavily' | 'exa' | 'searxng', query: string): Promise<{ outcome: SearchOutcome; req: (typeof sim.requests)[number] }> {
  sim.reset();
  const runner = createSearchRunner(wsConfig([vendorBackends(sim.url)[type]]));
  const outcome = await runner.search(query);
  t.equal(sim.requests.length, 1, `${type}: one request`);
  return { outcome, req: sim.requests[0]! };
}

t.test('Brave: GET /res/v1/web/search?q&count with X-Subscription-Token; description markup stripped', async (t) => {
  const { outcome, req } = await once('brave', 'node streams');
  t.equal(req.method, 'GET');
  t.equal(req.path, '/res/v1/web/search');
  const q = new URLSearchParams(req.query);
  t.equal(q.get('q'), 'node streams');
  t.equal(q.get('count'), '5');
  t.equal(req.headers['x-subscription-token'], 'brave-key-0001');
  t.equal(req.headers.accept, 'application/json');
  t.equal(req.body, undefined, 'no body');
  t.equal(outcome.kind, 'results');
  if (outcome.kind !== 'results') return;
  t.equal(outcome.backend, 'brave');
  t.equal(outcome.results.length, 5);
  t.same(outcome.results[0], {
    id: outcome.results[0]!.id,
    url: 'https://site1.example/node-streams',
    title: 'Result 1 for node streams',
    snippet: 'Simulated snippet 1 about node streams. It is deterministic: the same query always finds the same pages.',
    published: '2026-01-15T00:00:00',
  });
  t.match(outcome.results[0]!.id, /^ws_[a-z2-7]{10}$/);
});

t.test('Tavily: POST /search with Authorization: Bearer and a JSON body', async (t) => {
  const { outcome, req } = await once('tavily', 'node streams');
  t.equal(req.method, 'POST');
  t.equal(req.path, '/search');
  t.equal(req.headers.authorization, 'Bearer tvly-key-0002');
  t.match(req.headers['content-type'], /^application\/json/);
  t.same(req.body, { query: 'node streams', max_results: 5, search_depth: 'basic', topic: 'general', include_answer: false, include_raw_content: false, include_images: false });
  t.equal(outcome.kind, 'results');
  if (outcome.kind === 'results') t.equal(outcome.results[1]!.snippet, 'Simulated snippet 2 about node streams. It is deterministic: the same query always finds the same pages.');
});

t.test('Exa: POST /search with x-api-key, numResults and highlights', async (t) => {
  const { outcome, req } = await once('exa', 'node streams');
  t.equal(req.method, 'POST');
  t.equal(req.path, '/search');
  t.equal(req.headers['x-api-key'], 'exa-key-0003');
  t.equal(req.headers.authorization, undefined);
  t.same(req.body, { query: 'node streams', type: 'auto', numResults: 5, contents: { highlights: { maxCharacters: 2000 } } });
  t.equal(outcome.kind, 'results');
  if (outcome.kind === 'results') {
    t.equal(outcome.results[0]!.published, '2026-01-15T00:00:00.000Z');
    t.equal(outcome.results[0]!.title, 'Result 1 for node streams');
  }
});

t.test('SearXNG: GET /search?q&format=json, no key; its fixed page is capped to maxResults', async (t) => {
  const { outcome, req } = await once('searxng', 'node streams');
  t.equal(req.method, 'GET');
  t.equal(req.path, '/search');
  const q = new URLSearchParams(req.query);
  t.equal(q.get('q'), 'node streams');
  t.equal(q.get('format'), 'json');
  t.equal(req.headers.authorization, undefined);
  t.equal(outcome.kind, 'results');
  if (outcome.kind === 'results') t.equal(outcome.results.length, 5, 'the sim answers 10, maxResults keeps 5');
});

t.test('the same page gets the same id from every vendor and every call', async (t) => {
  const ids = new Set<string>();
  for (const type of ['brave', 'tavily', 'exa', 'searxng'] as const) {
    const { outcome } = await once(type, 'stable ids');
    if (outcome.kind === 'results') ids.add(outcome.results[2]!.id);
  }
  t.equal(ids.size, 1);
});

t.test('baseUrl overrides the vendor host and keeps a path prefix; without it the vendor host is used', async (t) => {
  t.equal(brave.buildRequest({ type: 'brave', apiKey: 'k' }, 'a b', 30).url, 'https://api.search.brave.com/res/v1/web/search?q=a+b&count=20', 'count capped at 20');
  t.equal(tavily.buildRequest({ type: 'tavily', apiKey: 'k' }, 'q', 5).url, 'https://api.tavily.com/search');
  t.equal(exa.buildRequest({ type: 'exa', apiKey: 'k' }, 'q', 5).url, 'https://api.exa.ai/search');
  t.equal(searxng.buildRequest({ type: 'searxng', baseUrl: 'https://search.example.org/searx/' }, 'q', 5).url, 'https://search.example.org/searx/search?q=q&format=json');
  t.equal(brave.buildRequest({ type: 'brave', baseUrl: 'http://127.0.0.1:9/proxy', apiKey: 'k' }, 'q', 5).url, 'http://127.0.0.1:9/proxy/res/v1/web/search?q=q&count=5');
});

t.test('several queries run in parallel, outcomes in the order asked', async (t) => {
  const runner = createSearchRunner(wsConfig([vendorBackends(sim.url).tavily], { timeoutMs: 800 }));
  const all = await runner.searchAll(['alpha', 'beta', 'gamma']);
  t.same(all.map((o) => [o.query, o.kind]), [['alpha', 'results'], ['beta', 'results'], ['gamma', 'results']]);
  // three stalled searches in series would take three timeouts
  const started = Date.now();
  const stalled = await runner.searchAll(['x sim-fault:stall', 'y sim-fault:stall', 'z sim-fault:stall']);
  t.ok(Date.now() - started < 2000, `three stalled searches took one timeout (${Date.now() - started} ms)`);
  t.same(stalled.map((o) => o.kind), ['failed', 'failed', 'failed']);
});

t.test('no backend configured: the runner is disabled and a search is a free failure', async (t) => {
  const runner = createSearchRunner(undefined);
  t.equal(runner.enabled, false);
  const out = await runner.search('anything');
  t.equal(out.kind, 'failed');
  t.same(out.attempts, []);
});
