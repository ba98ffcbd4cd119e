// GET /admin/v1/requests?after=: the forward cursor. Rows after a place, oldest first, `nextAfter`
// where the next page starts (the place given back when nothing came yet), so a client that keeps
// asking from it gets every row once, in order, as requests are served; `after=0` starts at the
// first row, `after=<request id>` at that request's row; a newest-first answer's `nextAfter` starts
// after its newest row. Through bin/gateway on a file store (PostgreSQL under `npm run
// test:postgres`; admin-requests-commit-order.long.test.ts covers rows committed out of order there).
import t from 'tap';
import { serveAndList, startAdminGateway, type AdminGateway } from '../helpers/admin.js';
import { TEST_KEY } from '../helpers/gateway.js';

/** Every row after `after`, page by page of `limit`; the cursor to continue from. */
async function forward(a: AdminGateway, after: string, limit: number): Promise<{ ids: string[]; next: string; pages: Record<string, any>[] }> {
  const ids: string[] = [];
  const pages: Record<string, any>[] = [];
  let next = after;
  for (;;) {
    const res = await a.call('GET', `/requests?limit=${limit}&after=${encodeURIComponent(next)}`);
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    pages.push(res.body);
    ids.push(...(res.body.data as { requestId: string }[]).map((r) => r.requestId));
    next = res.body.nextAfter;
    if (!res.body.hasMore) return { ids, next, pages };
  }
}

t.test('the forward cursor', async (t) => {
  const a = await startAdminGateway();
  t.teardown(() => a.gw.stop());
  const first = await serveAndList(a, TEST_KEY, 5, 5); // oldest first

  const all = await forward(a, '0', 2);
  t.same(all.ids, first, 'from 0: every row once, oldest first');
  t.same(all.pages.map((p) => p.data.length), [2, 2, 1], 'pages of the limit');
  t.same(all.pages.map((p) => p.hasMore), [true, true, false]);
  t.notOk('nextBefore' in all.pages[0]!, 'a forward page has no backward cursor');

  const idle = (await a.call('GET', `/requests?after=${all.next}`)).body;
  t.same(idle.data, [], 'nothing new yet');
  t.equal(idle.nextAfter, all.next, 'the cursor given back while nothing came');
  t.equal(idle.hasMore, false);

  const later = await serveAndList(a, TEST_KEY, 2, 7);
  t.same((await forward(a, all.next, 10)).ids, later.slice(5), 'the rows written since, once, in order');

  t.same((await forward(a, first[2]!, 2)).ids, later.slice(3), 'after a request id: the rows after its row');
  t.same((await forward(a, later[6]!, 2)).ids, [], 'after the newest request: none');

  const top = (await a.call('GET', '/requests?limit=3')).body;
  t.equal(top.data[0].requestId, later[6], 'newest first');
  const tail = await serveAndList(a, TEST_KEY, 1, 8);
  t.same((await forward(a, top.nextAfter, 5)).ids, [tail[7]], "a newest-first page's nextAfter: the rows after its newest");

  const filtered = (await a.call('GET', '/requests?after=0&key=nobody')).body;
  t.same(filtered.data, [], 'filters apply');

  for (const [query, why] of [
    ['after=req_0123456789abcdef0123456789abcdef', 'a request id the gateway never recorded'],
    ['after=not-a-place', 'neither a place nor a request id'],
    ['after=0&before=5', 'both directions'],
    ['after=0&after=1', 'twice'],
  ]) {
    const res = await a.call('GET', `/requests?${query}`);
    t.equal(res.status, 400, why);
    t.equal(res.body.error?.param, 'after', `${why}: names after`);
  }
});
