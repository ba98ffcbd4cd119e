// bin/gateway --workers 2 on PostgreSQL: a key's rate limit is exact across the two workers, kept
// by the cluster primary (no `limits`) or by Redis (`limits`), and the ledger ends exact. The SQLite
// variant runs in `npm run test:long` (test/cluster/workers.long.test.ts). Run by `npm run test:replicas`.
import t from 'tap';
import { baseConfig, startGateway } from '../helpers/gateway.js';
import { rawRequest } from '../helpers/http.js';
import { LedgerView } from '../helpers/billing.js';
import { PG_URL_ENV, startPostgres, type PgServer } from '../helpers/postgres.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';

const tier = process.env.GATEWAY_REPLICA_TIER === '1';
const LIMITED = 'sk-test-limited-0001';
const RPM = 9;

t.test('--workers 2 on PostgreSQL: exact rate limits, with and without Redis', { skip: tier ? false : 'the replica tier runs with `npm run test:replicas`' }, async (t) => {
  let pg: PgServer;
  let redis: RedisServer;
  [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  t.teardown(async () => void (await Promise.all([pg.stop(), redis.stop()])));
  process.env[PG_URL_ENV] = pg.url;

  for (const limits of [undefined, redis.url]) {
    await t.test(limits === undefined ? 'limits kept by the cluster primary' : 'limits kept in Redis', async (t) => {
      const db = pg.createDatabase();
      const config = baseConfig({
        store: db,
        ...(limits !== undefined ? { limits } : {}),
        keys: [...(baseConfig().keys as object[]), { id: 'limited', key: LIMITED, org: 'acme', rateLimit: { rpm: RPM } }],
      });
      const gw = await startGateway(config, { args: ['--workers', '2'] });
      t.teardown(() => gw.stop('SIGKILL'));
      // each worker's own line may reach stdout after the primary's
      for (let i = 0; i < 100 && gw.logs.filter((l) => l.msg === 'worker listening').length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      t.equal(gw.logs.filter((l) => l.msg === 'worker listening').length, 2, 'two workers');
      const replies = await Promise.all(
        Array.from({ length: 3 * RPM }, () =>
          rawRequest(`${gw.url}/v1/messages`, {
            headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': LIMITED, connection: 'close' },
            body: JSON.stringify({ model: 'opus', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
          }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      t.equal(statuses.filter((s) => s === 200).length, RPM, statuses.join(' '));
      t.equal(statuses.filter((s) => s === 429).length, 2 * RPM);
      t.equal(await gw.stop('SIGTERM'), 0);
      const view = new LedgerView(db);
      const org = view.org('acme');
      const spent = view.usage('acme').reduce((s, r) => s + Number(r.cost), 0);
      t.equal(Number(org.reserved), 0, 'nothing held');
      t.equal(Number(org.balance) + spent, view.credited('acme'), 'credits = balance + settled spend');
      t.equal(view.usage('acme').length, RPM, 'one usage row per admitted request');
    });
  }
});
