// With `limits: "redis://…"`, a key changed through the admin API is announced on the gateway's Redis
// bus (gw:bus, topic "keys"), so every replica sharing the limits drops its cached keys, whatever
// store it uses. The test listens on the channel as another replica would.
import t from 'tap';
import { startRedis } from '../helpers/redis-server.js';
import { startAdminGateway } from '../helpers/admin.js';
import { sleep } from '../helpers/billing.js';

t.test('create, patch and revoke each announce "keys" on the Redis bus', async (t) => {
  const redis = await startRedis();
  t.teardown(() => redis.stop());
  const a = await startAdminGateway({ limits: redis.url });
  t.teardown(() => a.gw.stop());
  const sub = redis.client.duplicate();
  t.teardown(() => void sub.disconnect());
  const heard: unknown[] = [];
  sub.on('message', (_channel: string, text: string) => heard.push((JSON.parse(text) as { msg: unknown }).msg));
  await sub.subscribe('gw:bus');

  const waitHeard = async (n: number): Promise<boolean> => {
    const end = Date.now() + 1000;
    while (heard.length < n && Date.now() < end) await sleep(10);
    return heard.length >= n;
  };
  const { id } = (await a.call('POST', '/keys', { org: 'acme' })).body as { id: string };
  t.ok(await waitHeard(1), 'announced after create');
  await a.call('PATCH', `/keys/${id}`, { scopes: ['messages'] });
  t.ok(await waitHeard(2), 'after patch');
  await a.call('DELETE', `/keys/${id}`);
  t.ok(await waitHeard(3), 'after revoke');
  t.same(heard, [{ topic: 'keys' }, { topic: 'keys' }, { topic: 'keys' }]);
  await a.call('POST', '/orgs', { id: 'quiet' });
  await sleep(200);
  t.equal(heard.length, 3, 'an organization change is not a key change');
});
