// Issue 4, "Credits that never leak", end to end: 300 simultaneous requests to Messages and Chat
// Completions through the real bin/gateway (streaming and not; successes, upstream failures, client
// disconnects mid-stream, integrity failures, upstream resets mid-stream, refusals) against an
// organization whose balance covers only part of them. Then, from the SQLite file and the credits
// CLI: the balance never went below zero and never held more than it had, initial credits = balance
// + settled spend exactly, no reservation is left, every row is charged exactly the cost of its
// recorded tokens, every success exactly what its client was told (usage; and `usage.cost` on Chat),
// failures nothing (except Messages after provider work: the validated usage so far), and a refused
// request never reached the provider.
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { credits } from '../helpers/messages.js';
import { UNITS_PER_USD } from '../../lib/store/types.js';
import { BILL_PRICING, expectedCost, fileStoreConfig, LedgerView, rowUsage, sleep, type UsageRow } from '../helpers/billing.js';
import { ALLOWED, CREDITS_UNITS, CREDITS_USD, fire, MIX, MODELS, plans, type Result } from './concurrency-plan.js';

t.test('300 simultaneous requests against a balance that covers only part of them', async (t) => {
  const store = fileStoreConfig(MODELS, {
    orgs: [{ id: 'acme', credits: CREDITS_USD, projects: [{ id: 'web', environments: [{ id: 'production' }] }] }],
    // one process serves the burst and the simulated provider: on a loaded machine the default test
    // timeouts (3 s) would turn successes into upstream timeouts; this test is not about timeouts
    providers: [
      { id: 'sim-anthropic', protocol: 'anthropic', simulated: true, timeoutMs: 60_000, idleTimeoutMs: 60_000 },
      { id: 'sim-openai', protocol: 'openai', simulated: true, timeoutMs: 60_000, idleTimeoutMs: 60_000 },
    ],
  });
  const gw = await startGateway(store.config);
  t.teardown(() => gw.stop('SIGKILL'));
  const view = new LedgerView(store.db);
  t.teardown(() => view.close());
  t.equal(view.credited('acme'), CREDITS_UNITS, 'initial credits granted once');

  // watch the ledger while the requests run
  let minBalance = Infinity;
  let minAvailable = Infinity;
  let maxReserved = 0;
  let samples = 0;
  const watch = setInterval(() => {
    const o = view.org('acme');
    samples++;
    minBalance = Math.min(minBalance, o.balance);
    minAvailable = Math.min(minAvailable, o.balance - o.reserved);
    maxReserved = Math.max(maxReserved, o.reserved);
  }, 10);

  const all = plans();
  t.equal(all.length, 300);
  const t0 = Date.now();
  const results = await Promise.all(all.map((p) => fire(gw.url, p)));
  const answeredMs = Date.now() - t0;
  // the gateway ends aborted requests after the client has gone: wait for the last holds to end
  let open = -1;
  for (let i = 0; i < 200; i++) {
    open = view.reservations().length;
    if (open === 0 && view.org('acme').reserved === 0) break;
    await sleep(25);
  }
  clearInterval(watch);
  t.equal(open, 0, 'no reservation left open while the gateway is still running');

  const count = (pred: (r: Result) => boolean): number => results.filter(pred).length;
  const label = (r: Result): string => `${r.plan.endpoint}:${r.plan.kind}`;
  const byOutcome: Record<string, Record<string, number>> = {};
  for (const r of results) {
    const entry = (byOutcome[label(r)] ??= {});
    entry[r.outcome] = (entry[r.outcome] ?? 0) + 1;
  }
  t.comment(`all answered in ${answeredMs} ms; outcomes: ${JSON.stringify(byOutcome)}`);
  t.comment(`ledger samples during the run: ${samples}; lowest balance ${minBalance}, lowest available ${minAvailable}, most held ${maxReserved} units`);

  // every request ended the way its kind allows
  const unexpected = results.filter((r) => !ALLOWED[r.plan.kind].includes(r.outcome));
  t.same(unexpected.map((r) => `${label(r)} (stream ${r.plan.stream}) ended as ${r.outcome} ${r.status}: ${r.text.slice(0, 300)}`), [], 'every request ended the way its kind allows');
  const bad402 = results.filter(
    (r) => r.outcome === '402' && (r.error !== (r.plan.endpoint === 'messages' ? 'billing_error' : 'insufficient_credits') || !/Insufficient credits/.test(r.text)),
  );
  t.same(bad402.map((r) => r.text), [], 'every refusal is 402 billing_error (Messages) / insufficient_credits (Chat)');
  const refused = count((r) => r.outcome === '402');
  const served = results.length - refused;
  t.equal(count((r) => r.plan.kind === 'too-big' && r.outcome === '402'), 20, 'a request whose reservation exceeds the whole balance is always refused');
  t.ok(count((r) => r.plan.kind !== 'too-big' && r.outcome === '402') > 0, 'the balance was short: affordable requests were refused too');
  for (const [endpoint, kind] of MIX.filter((m) => m[1] !== 'too-big').map((m) => [m[0], m[1]] as const)) {
    t.ok(count((r) => r.plan.endpoint === endpoint && r.plan.kind === kind && r.outcome !== '402') > 0, `some ${endpoint} ${kind} requests were served`);
  }

  // refused requests never reached the provider: one upstream call per served request
  const upstream = (await gw.simRequests()).filter((r) => r.path.startsWith('/v1/'));
  t.equal(upstream.length, served, `the provider saw exactly the ${served} served requests (${refused} refused)`);

  t.ok(minBalance >= 0, 'the balance never went below zero during the run');
  t.ok(minAvailable >= 0, 'the holds never exceeded the balance during the run');

  // the gateway is done; stop it and read the ledger
  t.equal(await gw.stop('SIGTERM'), 0, 'graceful exit');
  const [shown] = await credits(store.file, 'show', '--org', 'acme');
  const rows = view.usage('acme');
  const settled = rows.reduce((s, r) => s + r.cost, 0);
  t.comment(`initial ${CREDITS_UNITS} units, final balance ${String(shown!.balanceUnits)} units, settled ${settled} units over ${rows.length} usage rows`);
  t.equal(shown!.reservedUnits, 0, 'nothing reserved');
  t.same(view.reservations(), [], 'reservations table empty');
  t.ok((shown!.balanceUnits as number) >= 0, 'final balance ≥ 0');
  t.ok((shown!.spentUnits as number) <= CREDITS_UNITS, 'spent ≤ initial credits');
  t.equal((shown!.balanceUnits as number) + settled, CREDITS_UNITS, 'initial credits = balance + settled spend, exactly');
  t.equal(shown!.spentUnits, settled, 'the organization spent counter = the settled costs');
  t.ok(settled > 0, 'something was charged');

  // one usage row per served request, none for a refusal
  t.equal(rows.length, served, 'a usage row for every served request');
  const byId = new Map<string, UsageRow>(rows.map((r) => [r.request_id, r]));
  const cli = await credits(store.file, 'usage', '--org', 'acme', '--limit', '1000');
  t.equal(cli.length, rows.length, 'credits usage lists the same records');
  t.equal(
    cli.reduce((s, r) => s + (r.costUnits as number), 0),
    settled,
    'credits usage sums to the same spend',
  );

  // every row: cost = the cost of its recorded tokens at the served model's prices (or 0 when released)
  const mispriced = rows.filter((r) => r.cost !== 0 && r.cost !== expectedCost(BILL_PRICING, rowUsage(r)));
  t.same(mispriced, [], 'every charged row is charged exactly the cost of its recorded tokens');

  const problems: string[] = [];
  let checkedSuccess = 0;
  for (const r of results) {
    if (r.outcome === '402') {
      if (r.reqId === null || byId.has(r.reqId)) problems.push(`refused request ${r.reqId} has a usage row`);
      continue;
    }
    const row = r.reqId === null ? undefined : byId.get(r.reqId);
    if (!row) {
      problems.push(`no usage row for served ${label(r)} request ${r.reqId}`);
      continue;
    }
    const endpoint = r.plan.endpoint === 'messages' ? 'messages' : 'chat.completions';
    if (row.model_served !== r.plan.model || row.endpoint !== endpoint) problems.push(`${r.reqId}: row for ${row.endpoint} ${row.model_served}, asked ${label(r)} ${r.plan.model}`);
    if (r.outcome === 'success') {
      // charged exactly its computed cost, from what the client was told it used
      const told = r.usage!;
      const cost = expectedCost(BILL_PRICING, told);
      const ok =
        row.status === 200 &&
        row.error_code === null &&
        row.cost === cost &&
        cost > 0 &&
        row.input_tokens === told.input &&
        row.output_tokens === told.output &&
        row.cache_read_tokens === told.cacheRead &&
        (told.costUsd === undefined || told.costUsd === row.cost / UNITS_PER_USD);
      if (ok) checkedSuccess++;
      else problems.push(`success ${r.reqId}: row ${JSON.stringify(row)} vs client usage ${JSON.stringify(told)} (cost ${cost})`);
    } else if (r.plan.endpoint === 'chat' || r.plan.kind.startsWith('fail') || r.plan.kind === 'wrong-model') {
      // failed on Chat, or failed before any validated usage: nothing charged
      if (row.cost !== 0 || row.error_code === null) problems.push(`${label(r)} ${r.reqId} charged, or not recorded as failed: ${JSON.stringify(row)}`);
    } else {
      // Messages, failed after provider work: charged exactly the validated usage so far (message_start's at least)
      if (row.error_code === null) problems.push(`${label(r)} ${r.reqId} not recorded as failed: ${JSON.stringify(row)}`);
      if (row.cost !== expectedCost(BILL_PRICING, rowUsage(row))) problems.push(`${label(r)} ${r.reqId} not charged its recorded usage: ${JSON.stringify(row)}`);
      if (r.plan.stream && !(row.cost > 0 && row.input_tokens > 0)) problems.push(`${label(r)} ${r.reqId} mid-stream: the usage so far was not charged: ${JSON.stringify(row)}`);
    }
  }
  t.same(problems, [], 'each served request has its row, charged as its outcome requires; no refused request has one');
  t.equal(checkedSuccess, count((r) => r.outcome === 'success'), `every success (${checkedSuccess}) charged exactly the cost of the usage its client saw`);
  const failedCharged = rows.filter((r) => r.error_code !== null && r.cost > 0);
  t.comment(`charged after a failure (Messages, provider work done): ${failedCharged.length} rows, ${failedCharged.reduce((s, r) => s + r.cost, 0)} units`);
});
