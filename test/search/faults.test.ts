// Every way a search vendor fails maps to a typed outcome, and the runner falls back to the next
// backend in config order (decisions §11), through real HTTP against the simulated search backend.
import t from 'tap';
import { createSearchRunner, type SearchOutcome } from '../../lib/search/index.js';
import { SIM_BAD_KEY, SIM_RETRY_AFTER, startSimSearch, type SimSearch } from '../../lib/sim/search-server.js';
import { vendorBackends, wsConfig } from './helpers.js';

let sim: SimSearch;
t.before(async () => {
  sim = await startSimSearch();
});
t.teardown(() => sim.close());

const VENDORS = ['brave', 'tavily', 'exa', 'searxng'] as const;

async function searchOne(type: (typeof VENDORS)[number], query: string, timeoutMs = 3000): Promise<SearchOutcome> {
  return createSearchRunner(wsConfig([vendorBackends(sim.url)[type]], { timeoutMs })).search(query);
}

for (const type of VENDORS) {
  t.test(`${type}: each fault is a typed outcome`, async (t) => {
    const auth = await searchOne(type, 'q sim-fault:401');
    t.equal(auth.kind, 'failed');
    if (auth.kind === 'failed') t.match(auth.failure, { kind: 'auth', status: 401 });

    const limited = await searchOne(type, 'q sim-fault:429');
    if (limited.kind === 'failed') t.match(limited.failure, { kind: 'rate-limited', status: 429, retryAfterSeconds: SIM_RETRY_AFTER });
    else t.fail('429 is a failure');

    const down = await searchOne(type, 'q sim-fault:500');
    if (down.kind === 'failed') t.match(down.failure, { kind: 'upstream', status: 500 });
    else t.fail('500 is a failure');

    const bad = await searchOne(type, 'q sim-fault:malformed');
    if (bad.kind === 'failed') t.match(bad.failure, { kind: 'malformed' });
    else t.fail('malformed JSON is a failure');

    const empty = await searchOne(type, 'q sim-fault:empty');
    t.equal(empty.kind, 'empty', 'zero results is an answer, not a failure');
    t.same(empty.results, []);

    const started = Date.now();
    const stalled = await searchOne(type, 'q sim-fault:stall', 300);
    if (stalled.kind === 'failed') t.match(stalled.failure, { kind: 'timeout' });
    else t.fail('a stall is a failure');
    t.ok(Date.now() - started < 2000, 'given up after timeoutMs');

    const halfBody = await searchOne(type, 'q sim-fault:stall-body', 300);
    if (halfBody.kind === 'failed') t.match(halfBody.failure, { kind: 'timeout' }, 'timeoutMs covers the body too');
    else t.fail('a stalled body is a failure');
  });
}

t.test('vendor error messages are read from their own bodies, and an invalid key is auth', async (t) => {
  const brave = await searchOne('brave', 'q sim-fault:401');
  if (brave.kind === 'failed') t.match(brave.failure.message, /SUBSCRIPTION_TOKEN_INVALID/);
  const tavily = await searchOne('tavily', 'q sim-fault:401');
  if (tavily.kind === 'failed') t.match(tavily.failure.message, /missing or invalid API key/);
  const exa = await searchOne('exa', 'q sim-fault:401');
  if (exa.kind === 'failed') t.match(exa.failure.message, /INVALID_API_KEY/);
  const badKey = await createSearchRunner(wsConfig([{ type: 'exa', baseUrl: sim.url, apiKey: SIM_BAD_KEY }])).search('fine query');
  if (badKey.kind === 'failed') {
    t.equal(badKey.failure.kind, 'auth');
    t.notMatch(JSON.stringify(badKey), SIM_BAD_KEY, 'the key is not in the outcome');
  } else t.fail('an invalid key is a failure');
});

t.test("Brave's 429 wait comes from X-RateLimit-Reset (it sends no retry-after)", async (t) => {
  sim.reset();
  await searchOne('brave', 'q sim-fault:429');
  const out = await searchOne('brave', 'q sim-fault:429');
  t.equal(out.kind === 'failed' && out.failure.retryAfterSeconds, SIM_RETRY_AFTER);
});

t.test('a fault may be chosen by the backend baseUrl path or a header', async (t) => {
  const viaPath = await createSearchRunner(wsConfig([{ type: 'tavily', baseUrl: `${sim.url}/fault/500`, apiKey: 'k' }])).search('plain');
  t.equal(viaPath.kind === 'failed' && viaPath.failure.kind, 'upstream');
  sim.reset();
  const res = await fetch(`${sim.url}/search?q=plain&format=json`, { headers: { 'x-sim-search-fault': '429' } });
  t.equal(res.status, 429);
  t.equal(res.headers.get('retry-after'), String(SIM_RETRY_AFTER));
});

t.test('on error the next backend is tried, in config order; the first answer wins', async (t) => {
  sim.reset();
  const runner = createSearchRunner(
    wsConfig([
      { type: 'brave', baseUrl: `${sim.url}/fault/500`, apiKey: 'k1' },
      { type: 'tavily', baseUrl: `${sim.url}/fault/401`, apiKey: 'k2' },
      { type: 'searxng', baseUrl: `${sim.url}/fault/stall` },
      { type: 'exa', baseUrl: sim.url, apiKey: 'k3' },
      { type: 'tavily', baseUrl: sim.url, apiKey: 'never-reached' },
    ], { timeoutMs: 300 }),
  );
  const out = await runner.search('fallback');
  t.equal(out.kind, 'results');
  if (out.kind !== 'results') return;
  t.equal(out.backend, 'exa');
  t.same(out.attempts.map((a) => [a.index, a.backend, a.outcome]), [[0, 'brave', 'upstream'], [1, 'tavily', 'auth'], [2, 'searxng', 'timeout'], [3, 'exa', 'results']]);
  t.same(sim.requests.map((r) => r.path), ['/fault/500/res/v1/web/search', '/fault/401/search', '/fault/stall/search', '/search']);
});

t.test('every backend failing: the last failure is reported; empty does not fall back', async (t) => {
  sim.reset();
  const failing = createSearchRunner(wsConfig([{ type: 'exa', baseUrl: `${sim.url}/fault/429`, apiKey: 'k' }, { type: 'brave', baseUrl: `${sim.url}/fault/malformed`, apiKey: 'k' }]));
  const out = await failing.search('q');
  t.equal(out.kind === 'failed' && out.failure.kind, 'malformed');
  t.equal(out.attempts.length, 2);
  sim.reset();
  const empty = createSearchRunner(wsConfig([{ type: 'exa', baseUrl: `${sim.url}/fault/empty`, apiKey: 'k' }, { type: 'brave', baseUrl: sim.url, apiKey: 'k' }]));
  const e = await empty.search('q');
  t.equal(e.kind, 'empty');
  t.equal(sim.requests.length, 1, 'the second backend was not asked');
});

t.test('a refused connection is a network failure and falls back', async (t) => {
  const out = await createSearchRunner(wsConfig([{ type: 'searxng', baseUrl: 'http://127.0.0.1:1' }, { type: 'searxng', baseUrl: sim.url }])).search('q');
  t.equal(out.kind, 'results');
  t.equal(out.attempts[0]!.outcome, 'network');
});

t.test("the caller's abort stops the search without trying further backends", async (t) => {
  sim.reset();
  const runner = createSearchRunner(wsConfig([{ type: 'tavily', baseUrl: `${sim.url}/fault/stall`, apiKey: 'k' }, { type: 'exa', baseUrl: sim.url, apiKey: 'k' }], { timeoutMs: 5000 }));
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 100);
  const out = await runner.search('q', ac.signal);
  t.equal(out.kind, 'failed');
  t.equal(out.kind === 'failed' && out.aborted, true);
  t.equal(sim.requests.length, 1);
});
