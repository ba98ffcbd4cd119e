// GET /admin/v1/requests on PostgreSQL while writers commit out of order: a usage row whose seq was
// drawn before another's but whose transaction commits after it must still reach a client that
// polls the first page and pages down (`nextBefore`) to the newest row it already has. The slow
// writer is a transaction held open on the gateway's database (a replica's ledger batch stalled
// between its insert and its commit); the fast one is a request served by the real bin/gateway.
// PostgreSQL only (SQLite has one writer, its commit order is its rowid order); skipped when it is
// not installed. On a server of its own: its transaction ids are young, so one test can take them
// past a power of ten cheaply (an order by their text would then go wrong).
import pg from 'pg';
import t from 'tap';
import { ADMIN_KEY, adminCall, askMessages } from '../helpers/admin.js';
import { sleep } from '../helpers/billing.js';
import { baseConfig, startGateway, TEST_KEY } from '../helpers/gateway.js';
import { postgresBin, startPostgres } from '../helpers/postgres.js';
import { PG_MIGRATIONS } from '../../lib/store/pg/pg-migrations.js';

const skip = postgresBin() === null ? 'PostgreSQL is not installed' : false;

/** A client that keeps every request the listing ever answered: it reads from the top and pages down to a row it has. */
class Poller {
  readonly seen: string[] = [];

  constructor(private readonly url: string) {}

  async poll(): Promise<string[]> {
    const known = new Set(this.seen);
    const fresh: string[] = [];
    let before: string | null = null;
    walk: do {
      const page: Record<string, any> = (await adminCall(this.url, 'GET', `/requests?limit=2${before === null ? '' : `&before=${before}`}`)).body;
      for (const row of page.data as { requestId: string }[]) {
        if (known.has(row.requestId)) break walk;
        fresh.push(row.requestId);
      }
      before = page.nextBefore as string | null;
    } while (before !== null);
    this.seen.push(...fresh);
    return fresh;
  }

  /** Polls until `n` new rows came (another short transaction of the gateway may hold a row back a moment). */
  async pollFor(n: number): Promise<string[]> {
    const fresh: string[] = [];
    for (const deadline = Date.now() + 5000; fresh.length < n && Date.now() < deadline; await sleep(20)) fresh.push(...(await this.poll()));
    return fresh;
  }
}

/** Inserts a usage row as the ledger's batch does, in a transaction left open: commit() ends it. */
async function slowWriter(url: string, requestId: string): Promise<{ commit(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO usage (request_id, key_id, org, endpoint, model_requested, cost, status, latency_ms, created_at)
     VALUES ($1, 'full', 'acme', 'messages', 'anthropic/claude-opus-5', 0, 200, 1, $2)`,
    [requestId, Date.now()],
  );
  return {
    async commit() {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

async function settledRows(url: string, n: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await sleep(20)) {
      const { rows } = await client.query<{ request_id: string }>('SELECT request_id FROM usage');
      if (rows.length >= n) return rows.map((r) => r.request_id);
    }
    throw new Error(`fewer than ${n} usage rows after 5 s`);
  } finally {
    await client.end();
  }
}

t.test('with a PostgreSQL server', { skip }, async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.stop());

  t.test('a row committed after a later one is answered to a polling client, once', async (t) => {
    const url = server.createDatabase();
    const gw = await startGateway({ ...baseConfig({ admin: { keys: [ADMIN_KEY] } }), store: url });
    t.teardown(() => gw.stop());
    const poller = new Poller(gw.url);

    t.equal(await askMessages(gw.url, TEST_KEY), 200);
    await settledRows(url, 1);
    t.equal((await poller.pollFor(1)).length, 1, 'the first request');

    const slow = await slowWriter(url, 'req_slow_writer');
    t.equal(await askMessages(gw.url, TEST_KEY), 200, 'a request served while the slow writer is open');
    await settledRows(url, 2); // the gateway's row is committed, with a higher seq than the slow one
    t.same(await poller.poll(), [], 'nothing answered above a transaction still open');

    await slow.commit();
    const fresh = await poller.pollFor(2);
    t.equal(fresh.length, 2, 'both rows, once the slow writer committed');
    t.ok(fresh.includes('req_slow_writer'), 'the row committed out of order is not skipped');
    const all = await settledRows(url, 3);
    t.same([...poller.seen].sort(), [...all].sort(), 'the client has every committed row');
    t.equal(new Set(poller.seen).size, poller.seen.length, 'each once');

    t.equal((await adminCall(gw.url, 'GET', '/requests?before=12')).body.error.param, 'before', 'a cursor of another form is refused');
  });

  t.test('paging forward (after=), a row committed after a later one is answered, once, and a request id starts no later than the oldest open transaction', async (t) => {
    const url = server.createDatabase();
    const gw = await startGateway({ ...baseConfig({ admin: { keys: [ADMIN_KEY] } }), store: url });
    t.teardown(() => gw.stop());
    /** Every row after `after`, oldest first, and where to go on from. */
    const forward = async (after: string): Promise<{ ids: string[]; next: string }> => {
      const page: Record<string, any> = (await adminCall(gw.url, 'GET', `/requests?limit=500&after=${after}`)).body;
      return { ids: (page.data as { requestId: string }[]).map((r) => r.requestId), next: page.nextAfter as string };
    };
    const forwardFor = async (after: string, n: number): Promise<{ ids: string[]; next: string }> => {
      let got = { ids: [] as string[], next: after };
      for (const deadline = Date.now() + 5000; got.ids.length < n && Date.now() < deadline; await sleep(20)) got = await forward(after);
      return got;
    };

    t.equal(await askMessages(gw.url, TEST_KEY), 200);
    await settledRows(url, 1);
    const start = await forwardFor('0', 1);
    t.equal(start.ids.length, 1, 'the first request');

    const slow = await slowWriter(url, 'req_slow_writer');
    t.equal(await askMessages(gw.url, TEST_KEY), 200, 'a request served while the slow writer is open');
    const fast = (await settledRows(url, 2)).find((id) => !start.ids.includes(id))!; // the slow row is not visible yet
    const held = await forward(start.next);
    t.same(held.ids, [], 'nothing answered above a transaction still open');
    t.equal(held.next, start.next, 'the cursor given back');
    const fromFast = await forward(fast);
    t.same(fromFast.ids, [], 'after a request not listed yet: nothing yet');

    await slow.commit();
    const rest = await forwardFor(start.next, 2);
    t.same(rest.ids.sort(), [fast, 'req_slow_writer'].sort(), 'both rows, once the slow writer committed');
    t.same((await forward(rest.next)).ids, [], 'and nothing twice');
    t.ok((await forwardFor(fromFast.next, 1)).ids.includes('req_slow_writer'), 'from the request not listed then: the row committed below it is not skipped');
  });

  t.test('rows written before the commit-order migration are still listed, newest first', async (t) => {
    const url = server.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE gateway_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    for (const [i, migration] of PG_MIGRATIONS.slice(0, 2).entries()) {
      await client.query(migration);
      await client.query('INSERT INTO gateway_migrations (version) VALUES ($1)', [i + 1]);
    }
    for (const id of ['req_old_1', 'req_old_2']) {
      await client.query(`INSERT INTO usage (request_id, key_id, org, endpoint, cost, status, latency_ms, created_at) VALUES ($1, 'full', 'acme', 'messages', 0, 200, 1, 0)`, [id]);
    }
    await client.end();
    const gw = await startGateway({ ...baseConfig({ admin: { keys: [ADMIN_KEY] } }), store: url });
    t.teardown(() => gw.stop());
    t.equal(await askMessages(gw.url, TEST_KEY), 200);
    await settledRows(url, 3);
    const poller = new Poller(gw.url);
    const listed = await poller.pollFor(3);
    t.equal(listed.length, 3);
    t.same(listed.slice(1), ['req_old_2', 'req_old_1'], 'the old rows in their order, below the new one');
  });

  t.test('rows keep their order when transaction ids gain a digit', async (t) => {
    const url = server.createDatabase();
    const gw = await startGateway({ ...baseConfig({ admin: { keys: [ADMIN_KEY] } }), store: url });
    t.teardown(() => gw.stop());
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    const write = (id: string): Promise<unknown> =>
      client.query(`INSERT INTO usage (request_id, key_id, org, endpoint, cost, status, latency_ms, created_at) VALUES ($1, 'full', 'acme', 'messages', 0, 200, 1, 0)`, [id]);
    const now = BigInt((await client.query<{ x: string }>('SELECT pg_current_xact_id()::text AS x')).rows[0]!.x);
    let boundary = 10n ** BigInt(String(now).length);
    if (boundary - now < 100n) boundary *= 10n;
    await write('req_below');
    await client.query(`CREATE PROCEDURE burn_xids(n BIGINT) LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..n LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$`);
    await client.query('CALL burn_xids($1)', [String(boundary - now)]);
    await write('req_above');
    const places = (await client.query<{ request_id: string; txid: string }>('SELECT request_id, txid::text AS txid FROM usage ORDER BY seq')).rows;
    t.ok(places[0]!.txid.length < places[1]!.txid.length, `transaction ids ${places[0]!.txid} then ${places[1]!.txid}`);
    const listed = await new Poller(gw.url).pollFor(2);
    t.same(listed, ['req_above', 'req_below'], 'newest first');
  });
});
