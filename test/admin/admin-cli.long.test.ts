// `gateway keys` and `gateway usage`, and `gateway credits add`, run as an operator runs them against
// the store a gateway is serving: they call the admin API's operations (same checks, same audit
// log), and the serving gateway honours a key the CLI made or revoked within a second.
import t from 'tap';
import { sleep } from '../helpers/billing.js';
import { askMessages, startAdminGateway } from '../helpers/admin.js';
import { gatewayCli, usageLines } from '../helpers/processes.js';

async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms * 3) {
    if (await check()) return Date.now() - start;
    await sleep(20);
  }
  return -1;
}

t.test('keys create|list|revoke, credits add and usage from the command line', async (t) => {
  const a = await startAdminGateway();
  t.teardown(() => a.gw.stop());
  const cli = (...args: string[]): ReturnType<typeof gatewayCli> => gatewayCli(a.store.dir, [...args, '--config', a.store.file]);

  const made = cli('keys', 'create', '--org', 'acme', '--name', 'from-cli', '--scopes', 'messages', '--rpm', '100');
  t.equal(made.status, 0, made.stderr);
  const [key] = usageLines(made.stdout) as { id: string; key: string }[];
  t.match(key, { org: 'acme', name: 'from-cli', scopes: ['messages'], rateLimit: { rpm: 100 }, source: 'admin', key: /^sk-gw-/ });
  const usable = await within(1000, async () => (await askMessages(a.gw.url, key!.key)) === 200);
  t.ok(usable >= 0 && usable < 1000, `the serving gateway takes the CLI's key within a second (${usable} ms)`);
  t.match((await a.call('GET', `/keys/${key!.id}`)).body, { name: 'from-cli', source: 'admin' }, 'the admin API sees it');

  const listed = cli('keys', 'list', '--org', 'acme');
  t.equal(listed.status, 0);
  const lines = usageLines(listed.stdout);
  t.same(lines.map((l) => l.id).sort(), ['full', key!.id].sort());
  t.notOk(listed.stdout.includes(key!.key), 'no secret in the listing');

  const bad = cli('keys', 'create', '--org', 'acme', '--scopes', 'messages,email');
  t.equal(bad.status, 2);
  t.match(bad.stderr, /scopes\[1\]: must be one of/);
  t.equal(cli('keys', 'create').status, 2, 'needs --org');

  const revoked = cli('keys', 'revoke', '--id', key!.id);
  t.equal(revoked.status, 0, revoked.stderr);
  t.match(usageLines(revoked.stdout), [{ id: key!.id, revoked: true }]);
  const refused = await within(1000, async () => (await askMessages(a.gw.url, key!.key)) === 401);
  t.ok(refused >= 0 && refused < 1000, `and refuses it within a second of the CLI's revoke (${refused} ms)`);

  const tooMuch = cli('credits', 'add', '--org', 'acme', '--usd', '-1000');
  t.equal(tooMuch.status, 2);
  t.match(tooMuch.stderr, /below zero/);
  t.equal((await a.call('GET', '/orgs/acme')).body.balance, 100 - (await a.call('GET', '/orgs/acme')).body.spent, 'the balance is unchanged');
  const added = cli('credits', 'add', '--org', 'acme', '--usd', '1.5', '--reason', 'top-up');
  t.equal(added.status, 0, added.stderr);
  const audit = (await a.call('GET', '/audit')).body.data as { actor: string; action: string }[];
  t.same(audit.map((r) => r.action), ['org.credits', 'key.revoke', 'key.create'], 'the CLI\'s changes are audited');
  t.match(audit[0]!.actor, /^cli:/);

  const usage = cli('usage', '--group-by', 'key');
  t.equal(usage.status, 0, usage.stderr);
  const rows = usageLines(usage.stdout);
  const api = (await a.call('GET', '/usage?group_by=key')).body;
  t.same(rows.slice(0, -1), api.data.map((d: Record<string, unknown>) => ({ group_by: 'key', ...d })), 'the same sums as the API');
  t.same(rows[rows.length - 1], { total: api.total });
  const wrong = cli('usage', '--group-by', 'week');
  t.equal(wrong.status, 2);
  t.match(wrong.stderr, /group_by: must be one of/);
});
