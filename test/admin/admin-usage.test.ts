// The usage API's spend equals the ledger's and what the clients were told (`usage.cost` on Chat
// Completions, `gateway.cost` on Responses); sums by day, model and key; from/to filters; recent
// requests paged by cursor with their routing decision. Through bin/gateway on a file store
// (PostgreSQL under `npm run test:postgres`).
import t from 'tap';
import { LedgerView, sleep } from '../helpers/billing.js';
import { startAdminGateway } from '../helpers/admin.js';
import { TEST_KEY } from '../helpers/gateway.js';

const units = (usd: number): number => Math.round(usd * 1e9);

async function post(url: string, path: string, key: string, body: unknown, extra: Record<string, string> = {}): Promise<Record<string, any>> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...extra }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, any>;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

t.test('spend by the usage API equals the ledger and the costs the clients were told', async (t) => {
  const a = await startAdminGateway();
  t.teardown(() => a.gw.stop());
  const ledger = new LedgerView(a.store.db);
  t.teardown(() => ledger.close());
  const { key, id } = (await a.call('POST', '/keys', { org: 'acme', name: 'billing' })).body as { key: string; id: string };

  const told: number[] = [];
  for (const content of ['hello', 'a longer question about the weather']) {
    const chat = await post(a.gw.url, '/v1/chat/completions', key, { model: 'openai/gpt-5', messages: [{ role: 'user', content }] });
    told.push(chat.usage.cost as number);
  }
  const resp = await post(a.gw.url, '/v1/responses', key, { model: 'openai/gpt-5', input: 'hi there' });
  told.push(resp.gateway.cost as number);
  // two Messages requests on the config key: a direct one and a gateway-auto one (its routing decision is kept)
  const mh = { 'anthropic-version': '2023-06-01', 'x-api-key': TEST_KEY };
  await post(a.gw.url, '/v1/messages', TEST_KEY, { model: 'anthropic/claude-opus-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }, mh);
  await post(a.gw.url, '/v1/messages', TEST_KEY, { model: 'gateway-auto', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }, mh);

  // settles are written as each request closes: wait for all five rows
  const deadline = Date.now() + 5000;
  let total: Record<string, any> = {};
  while (Date.now() < deadline) {
    total = (await a.call('GET', '/usage?org=acme')).body.total;
    if (total.requests === 5) break;
    await sleep(20);
  }
  t.equal(total.requests, 5, 'five requests');

  const byKey = await a.call('GET', `/usage?key=${id}&group_by=model`);
  t.equal(byKey.status, 200);
  t.equal(units(byKey.body.total.usd), told.map(units).reduce((x, y) => x + y, 0), 'the key\'s spend is the sum of the costs its client was told');
  t.match(byKey.body, { object: 'list', group_by: 'model', data: [{ group: 'openai/gpt-5', requests: 3 }] });
  t.ok(byKey.body.total.inputTokens > 0 && byKey.body.total.outputTokens > 0, 'tokens summed');
  t.equal(units((await a.call('GET', `/keys/${id}`)).body.spent), units(byKey.body.total.usd), 'the key\'s spent counter agrees');

  const org = ledger.org('acme');
  t.equal(units(total.usd), org.spent, 'the organization\'s spend equals the ledger\'s spent counter');
  t.equal(units(total.usd), ledger.usage('acme').reduce((s, r) => s + Number(r.cost), 0), 'and the sum of its usage rows');
  t.equal(units((await a.call('GET', '/orgs/acme')).body.spent), org.spent, 'GET /orgs agrees');

  const byDay = await a.call('GET', '/usage?group_by=day');
  const today = new Date().toISOString().slice(0, 10);
  t.match(byDay.body.data, [{ group: today, requests: 5 }]);
  const keys = (await a.call('GET', '/usage?group_by=key')).body.data as { group: string; requests: number }[];
  t.same(keys.map((k) => [k.group, k.requests]).sort(), [['full', 2], [id, 3]].sort());
  t.equal((await a.call('GET', '/usage?group_by=project')).body.data.length, 2, 'the config key\'s project and none');
  t.equal((await a.call('GET', '/usage?from=2000-01-01&to=2000-01-02')).body.total.requests, 0, 'from/to exclude the rest');
  t.equal((await a.call('GET', `/usage?from=${today}`)).body.total.requests, 5);
  t.equal((await a.call('GET', `/usage?to=${today}`)).body.total.requests, 0, 'to is exclusive');
  t.equal((await a.call('GET', '/usage?model=anthropic/claude-opus-5')).body.total.requests >= 1, true);
  for (const [query, param] of [['group_by=week', 'group_by'], ['from=26-11-2026', 'from'], ['to=2026-13-45', 'to'], ['org=a&org=b', 'org'], ['since=2026-01-01', 'since']]) {
    const r = await a.call('GET', `/usage?${query}`);
    t.equal(r.status, 400, query);
    t.equal(r.body.error.param, param);
  }

  // recent requests, two at a time
  const seen: Record<string, any>[] = [];
  let before: string | null = null;
  do {
    const page: Record<string, any> = (await a.call('GET', `/requests?limit=2${before ? `&before=${before}` : ''}`)).body;
    t.equal(page.object, 'list');
    t.ok(page.data.length <= 2);
    seen.push(...page.data);
    before = page.nextBefore;
    t.equal(page.hasMore, before !== null);
  } while (before !== null);
  t.equal(seen.length, 5, 'every request once');
  t.equal(new Set(seen.map((r) => r.requestId)).size, 5);
  t.same(seen.map((r) => r.endpoint), ['messages', 'messages', 'responses', 'chat.completions', 'chat.completions'], 'newest first');
  t.match(seen[0], { requestedModel: 'gateway-auto', status: 200, key: 'full', org: 'acme', project: 'web', environment: 'production' });
  t.type(seen[0]!.routing, 'object', 'the gateway-auto decision');
  t.not(seen[0]!.routing, null);
  t.equal(seen[1]!.routing, null, 'a direct call has none');
  t.match(seen[4], { requestedModel: 'openai/gpt-5', servedModel: 'openai/gpt-5', provider: 'sim-openai', errorCode: null, key: id });
  t.equal(units(seen[4]!.usd), units(told[0]!), 'each request\'s usd is what its client was told');
  t.ok(typeof seen[4]!.latencyMs === 'number' && !Number.isNaN(Date.parse(seen[4]!.at)));
  t.equal((await a.call('GET', `/requests?key=${id}`)).body.data.length, 3);
  t.equal((await a.call('GET', '/requests?before=abc')).body.error.param, 'before');
  t.equal((await a.call('GET', '/requests?limit=501')).body.error.param, 'limit');
});
