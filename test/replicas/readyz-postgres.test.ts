// /readyz on PostgreSQL: ready while the database answers; 503 naming the store once it is gone
// (/healthz stays 200: the process is alive). Run by `npm run test:replicas`.
import t from 'tap';
import { baseConfig, startGateway } from '../helpers/gateway.js';
import { startPostgres } from '../helpers/postgres.js';

const tier = process.env.GATEWAY_REPLICA_TIER === '1';

t.test('/readyz fails while PostgreSQL is down', { skip: tier ? false : 'the replica tier runs with `npm run test:replicas`' }, async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  const gw = await startGateway(baseConfig({ store: pg.createDatabase() }));
  t.teardown(() => gw.stop('SIGKILL'));
  const ready = await fetch(`${gw.url}/readyz`);
  t.equal(ready.status, 200);
  t.same(await ready.json(), { status: 'ready', checks: { store: 'ok' } });
  await pg.stop();
  let down: { status: number; body: unknown } = { status: 0, body: null };
  for (let i = 0; i < 40 && down.status !== 503; i++) {
    const r = await fetch(`${gw.url}/readyz`);
    down = { status: r.status, body: await r.json() };
    if (down.status !== 503) await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(down.status, 503, JSON.stringify(down.body));
  t.match(down.body, { status: 'not ready', checks: { store: /the store does not answer/ } });
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200, 'alive all the same');
});
