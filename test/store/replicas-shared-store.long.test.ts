// Issue 16: several bin/gateway processes on one store, restarted one at a time (a rolling restart:
// the new process starts before the old one leaves). Each start used to release every reservation
// of another boot, including those of the processes still serving: their settles then found
// nothing, so answers told their client a cost that was never charged. With leases, a start (and
// the sweeps of the live processes) releases only the holds of processes that are gone.
//
// Three gateways on one SQLite file (or, with GATEWAY_TEST_STORE=postgres, one PostgreSQL
// database) serve a mix of Messages and Chat requests (successes, upstream faults, client
// disconnects, long streams); while holds are open on all three, a fourth starts on the same store
// and the third is stopped (SIGTERM). Afterwards: no reservation open, initial credits = balance +
// settled spend exactly, and every success charged exactly what its client was told.
import t from 'tap';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { eventually } from '../helpers/messages.js';
import { UNITS_PER_USD } from '../../lib/store/types.js';
import { billModel, BILL_PRICING, expectedCost, fileStoreConfig, LedgerView, rowUsage, sleep } from '../helpers/billing.js';
import { ALLOWED, fire, MODELS, plans, type Plan, type Result } from '../billing/concurrency-plan.js';

const CREDITS_USD = 100;
const CREDITS_UNITS = CREDITS_USD * UNITS_PER_USD;

const LONG = [
  // about 20 s of stream: still open when the fourth process starts, even on a loaded machine
  billModel('bill/long', 'claude-bill;delay=250;deltas=80'),
  { ...billModel('billchat/long', 'gpt-bill;delay=250;deltas=80'), family: 'openai', deployments: [{ provider: 'sim-openai', model: 'gpt-bill;delay=250;deltas=80', api: 'chat' }] },
];

function longPlans(n: number): Plan[] {
  return Array.from({ length: n }, (_, i) => ({
    endpoint: i % 2 === 0 ? 'messages' : 'chat',
    kind: 'slow-stream',
    model: i % 2 === 0 ? 'bill/long' : 'billchat/long',
    stream: true,
    maxTokens: 64,
    abort: false,
  }));
}

t.test('a rolling restart on a shared store never releases a live process’s holds', async (t) => {
  const store = fileStoreConfig([...MODELS, ...LONG], {
    orgs: [{ id: 'acme', credits: CREDITS_USD, projects: [{ id: 'web', environments: [{ id: 'production' }] }] }],
    // the leaving process lets its long streams finish (a rolling restart drains, it does not cut)
    shutdownGraceMs: 40_000,
    providers: [
      { id: 'sim-anthropic', protocol: 'anthropic', simulated: true, timeoutMs: 60_000, idleTimeoutMs: 60_000 },
      { id: 'sim-openai', protocol: 'openai', simulated: true, timeoutMs: 60_000, idleTimeoutMs: 60_000 },
    ],
  });
  const gateways: RunningGateway[] = [];
  t.teardown(async () => {
    for (const g of gateways) await g.stop('SIGKILL');
  });
  for (let i = 0; i < 3; i++) gateways.push(await startGateway(store.config));
  const [a, b, c] = gateways as [RunningGateway, RunningGateway, RunningGateway];
  const view = new LedgerView(store.db);
  t.teardown(() => view.close());

  // the burst, spread over the three; long streams first so that holds are open on each
  // (the balance covers everything here: no request is refused, so every success is checked)
  const burst = [...longPlans(30), ...plans().filter((p) => p.kind !== 'too-big')];
  const running = burst.map((p, i) => fire(gateways[i % 3]!.url, p));
  const heldByAll = async (): Promise<ReturnType<LedgerView['reservations']> | undefined> => {
    const held = view.reservations();
    return held.length >= 20 && new Set(held.map((r) => r.boot_id)).size === 3 ? held : undefined;
  };
  const open = await eventually(heldByAll, 20_000);
  t.ok(open, `holds open on the shared store, by all three processes (${open?.length ?? 0})`);
  const owners = new Set(open?.map((r) => r.boot_id));

  // the rolling restart: a fourth process starts on the same store, then the third leaves
  const d = await startGateway(store.config);
  gateways.push(d);
  const stillOpen = view.reservations().filter((r) => owners.has(r.boot_id)).length;
  // (the point of the test: the new process started while the others held; a machine too slow to start it within the long streams fails here)
  t.ok(stillOpen > 0, `the live processes' holds are still open after the new start (${stillOpen})`);
  t.notOk(
    d.logs.some((l) => l.msg === 'released reservations left by a previous process'),
    'the new process released nothing: every other process is alive',
  );
  const leaving = c.stop('SIGTERM');
  // the new process serves too
  const later = longPlans(6).map((p) => fire(d.url, { ...p, model: p.endpoint === 'messages' ? 'bill/demo' : 'billchat/demo', stream: false }));
  const results: Result[] = await Promise.all([...running, ...later]);
  t.equal(await leaving, 0, 'the third process left cleanly');

  // the gateways end aborted requests after the client has gone: wait for the last holds to end
  await eventually(async () => view.reservations().length === 0 && view.org('acme').reserved === 0, 10_000);
  for (const g of [a, b, d]) t.equal(await g.stop('SIGTERM'), 0, 'graceful exit');
  for (const g of [a, b, d]) {
    t.notOk(
      g.logs.some((l) => l.msg === 'released reservations left by a previous process'),
      'no process released another live process’s holds',
    );
  }

  const unexpected = results.filter((r) => !ALLOWED[r.plan.kind].includes(r.outcome) || r.outcome === '402');
  t.same(unexpected.map((r) => `${r.plan.endpoint}:${r.plan.kind} ended as ${r.outcome} ${r.status}: ${r.text.slice(0, 200)}`), [], 'every request ended the way its kind allows');

  t.same(view.reservations(), [], 'no reservation open');
  const org = view.org('acme');
  const rows = view.usage('acme');
  const settled = rows.reduce((s, r) => s + r.cost, 0);
  t.equal(org.reserved, 0, 'nothing reserved');
  t.equal(org.balance + settled, CREDITS_UNITS, 'initial credits = balance + settled spend, exactly');
  t.equal(org.spent, settled, 'spent = the settled costs');

  const byId = new Map(rows.map((r) => [r.request_id, r]));
  const problems: string[] = [];
  let successes = 0;
  for (const r of results) {
    if (r.outcome !== 'success') continue;
    successes++;
    const row = r.reqId === null ? undefined : byId.get(r.reqId);
    const told = r.usage!;
    const cost = expectedCost(BILL_PRICING, told);
    if (!row) problems.push(`success ${r.reqId} (${r.plan.endpoint} ${r.plan.model}) has no usage row: its client was told ${cost} units never charged`);
    else if (row.cost !== cost || row.cost !== expectedCost(BILL_PRICING, rowUsage(row)) || (told.costUsd !== undefined && told.costUsd !== row.cost / UNITS_PER_USD)) {
      problems.push(`success ${r.reqId}: charged ${row.cost}, its client was told ${JSON.stringify(told)} (${cost} units)`);
    }
  }
  t.same(problems, [], `every success (${successes}) charged exactly what its client was told`);
  t.ok(successes > 100, `${successes} successes`);
  await sleep(0);
});
