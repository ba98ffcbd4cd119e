// The billing matrix of the search loop (decisions §11), through bin/gateway and its ledger: $0.01
// per search that returned a usable source, nothing for one that returned none, failed or was
// refused; every round's tokens (the results included) as the input they are; the charge equals the
// answer's `gateway.cost`. The backends here are [brave answering 500, tavily]: every search falls back.
import t from 'tap';
import { TEST_KEY } from '../helpers/gateway.js';
import { sleep } from '../helpers/billing.js';
import { brave, charged, messages, reportedUnits, responses, SEARCH_PRICE_UNITS, startSearchGateway, type SearchGateway } from './loop-helpers.js';

const POOR_KEY = 'sk-test-poor-0000';
let s: SearchGateway;
t.before(async () => {
  s = await startSearchGateway(
    { backends: [brave('SIM/fault/500'), { type: 'tavily', baseUrl: 'SIM', apiKey: 'tvly-key-0002' }], timeoutMs: 1500 },
    {
      pingIntervalMs: 300,
      orgs: [
        { id: 'acme', credits: 100, projects: [{ id: 'web', environments: [{ id: 'production' }] }] },
        { id: 'poor', credits: 0.05, projects: [{ id: 'web', environments: [{ id: 'production' }] }] },
      ],
      keys: [
        { id: 'full', key: TEST_KEY, org: 'acme', project: 'web', environment: 'production' },
        { id: 'poor', key: POOR_KEY, org: 'poor', project: 'web', environment: 'production' },
      ],
    },
  );
});
t.teardown(() => s.close());

const SEARCH = [{ type: 'web_search' }];
const tavilyCalls = (): number => s.search.requests.filter((r) => r.headers.authorization !== undefined).length;

/** The web_search_call items a Responses client was shown (one per billed search). */
const shownSearches = (a: { body: Record<string, unknown> }): number => ((a.body.output as { type: string }[] | undefined) ?? []).filter((i) => i.type === 'web_search_call').length;

async function modelBodies(): Promise<string[]> {
  return (await s.gw.simRequests()).map((r) => JSON.stringify(r.body));
}

async function reset(): Promise<void> {
  await s.gw.clearSim();
  s.search.reset();
}

t.test('source (after a fallback): one search billed, tokens on top, ledger == gateway.cost', async (t) => {
  await reset();
  const a = await responses(s.gw, { model: 'test/chat', input: 'river levels', tools: SEARCH });
  t.equal(a.status, 200);
  t.equal(s.search.requests.length, 2, 'brave failed, tavily answered');
  const { row, expected } = await charged(s.ledger, a.requestId);
  t.equal(row.web_searches, 1);
  t.equal(shownSearches(a), 1, 'the client sees the billed search');
  t.equal(row.cost, expected);
  t.equal(reportedUnits(a), row.cost);
});

for (const [fault, what, said] of [['empty', 'no source', /No results were found/], ['500', 'backend error', /The search failed: no search engine could be reached/]] as const) {
  t.test(`${what}: the search is free, the tokens are charged`, async (t) => {
    await reset();
    const a = await responses(s.gw, { model: 'test/chat', input: `river levels sim-fault:${fault}`, tools: SEARCH });
    t.equal(a.status, 200);
    const bodies = await modelBodies();
    t.equal(bodies.length, 2, 'the model answers from the result');
    t.match(bodies[1], said);
    const { row, expected } = await charged(s.ledger, a.requestId);
    t.equal(row.web_searches, 0);
    t.equal(shownSearches(a), 0, 'no web_search_call for a search without a source');
    t.equal(row.cost, expected);
    t.equal(reportedUnits(a), row.cost);
    t.ok(row.cost > 0 && row.cost < SEARCH_PRICE_UNITS, 'tokens only');
  });
}

t.test('over budget: the reservation covers every round and search, so a balance too small is refused before any work', async (t) => {
  await reset();
  const plain = await responses(s.gw, { model: 'test/chat', input: 'hello', max_output_tokens: 200 }, POOR_KEY);
  t.equal(plain.status, 200, 'the same request without search fits');
  const a = await responses(s.gw, { model: 'test/chat', input: 'hello', max_output_tokens: 200, tools: SEARCH }, POOR_KEY);
  t.equal(a.status, 402);
  t.equal(s.search.requests.length, 0, 'nothing searched');
  t.equal((await modelBodies()).length, 1, 'only the first request reached the model');
});

t.test('failover mid-loop: the next round fails over with the same results; nothing searched or billed twice', async (t) => {
  await reset();
  const a = await responses(s.gw, { model: 'test/failover', input: 'tram times', tools: SEARCH, stream: true });
  t.equal(a.status, 200);
  t.equal(tavilyCalls(), 1, 'one search');
  const bodies = await modelBodies();
  t.equal(bodies.length, 3, 'round 1, round 2 refused with a 500, round 2 on the next deployment');
  const results = bodies.slice(1).map((b) => JSON.parse(b).messages.filter((m: { role: string }) => m.role === 'tool'));
  t.same(results[0], results[1], 'the same results');
  const { row, expected } = await charged(s.ledger, a.requestId);
  t.equal(row.web_searches, 1);
  t.equal(shownSearches(a), 1, 'shown once');
  t.equal(row.cost, expected);
  t.equal(reportedUnits(a), row.cost);
});

t.test('keep-alive pings while a search runs', async (t) => {
  await reset();
  const a = await messages(s.gw, { model: 'test/chat', max_tokens: 300, stream: true, messages: [{ role: 'user', content: 'slow sim-fault:stall' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }] });
  t.equal(a.status, 200);
  const pings = (a.body.events as string[]).filter((e) => e === 'ping').length;
  t.ok(pings >= 3, `${pings} pings during the 1.5 s search`);
  const { row, expected } = await charged(s.ledger, a.requestId);
  t.equal(row.web_searches, 0, 'a timed-out search is free');
  t.equal(row.cost, expected);
});

/** Start a stream whose second round is slow, and leave once the search has answered. */
async function leaveAfterSearch(path: string, headers: Record<string, string>, body: Record<string, unknown>): Promise<string | null> {
  const ctrl = new AbortController();
  const res = await fetch(`${s.gw.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: ctrl.signal });
  const reader = res.body!.getReader();
  const reading = (async () => {
    for (;;) if ((await reader.read()).done) return;
  })().catch(() => undefined);
  for (let i = 0; i < 200 && tavilyCalls() === 0; i++) await sleep(20);
  await sleep(300); // the search's result went out; round 2 is on its way (it takes 4 s)
  ctrl.abort();
  await reading;
  return res.headers.get('x-gateway-request-id') ?? res.headers.get('request-id') ?? res.headers.get('x-request-id');
}

t.test('client gone after a search was reported: Messages charges the search and round 1, Responses nothing', async (t) => {
  await reset();
  const mid = await leaveAfterSearch('/v1/messages', { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY }, { model: 'test/slow-round', max_tokens: 300, stream: true, messages: [{ role: 'user', content: 'ferry times' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }] });
  const m = await charged(s.ledger, mid);
  t.equal(m.row.web_searches, 1, 'the reported search is charged');
  t.equal(m.row.cost, m.expected);
  t.ok(m.row.input_tokens > 0, 'with round 1');
  t.ok(m.row.error_code, `recorded as failed (${m.row.error_code})`);
  const rid = await leaveAfterSearch('/v1/responses', { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, { model: 'test/slow-round', input: 'ferry times', stream: true, tools: SEARCH });
  const r = await charged(s.ledger, rid);
  t.equal(r.row.cost, 0, 'a Responses request that failed is not charged');
});
