// Issue 4, "Credits that never leak", end to end: 300 simultaneous Messages requests through the real
// bin/gateway (streaming and not; successes, upstream failures, client disconnects mid-stream,
// integrity failures, upstream resets mid-stream, refusals) against an organization whose balance
// covers only part of them. Then, from the SQLite file and the credits CLI: the balance never went
// below zero and never held more than it had, initial credits = balance + settled spend exactly, no
// reservation is left, every row is charged exactly the cost of its recorded tokens, every success
// exactly what its client was told it used, and a refused request never reached the provider.
import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { credits, parseSse } from '../helpers/messages.js';
import { BILL_PRICING, billModel, expectedCost, fileStoreConfig, headersFor, LedgerView, localRequestId, rowUsage, sleep, TEST_KEY, type UsageRow } from './util.js';

const MODELS = [
  billModel('bill/demo', 'claude-bill'),
  billModel('bill/slow', 'claude-bill;delay=20;deltas=20'),
  billModel('bill/fail500', 'fault:500'),
  billModel('bill/wrong-model', 'fault:wrong-model'),
  billModel('bill/malformed', 'fault:malformed-sse'),
  billModel('bill/no-stop', 'fault:no-stop'),
  billModel('bill/reset-mid', 'fault:reset-mid'),
];

/** 30 words, under the demo's 200-character echo: the answer has 35 output tokens, below max_tokens. */
const TEXT = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
const MAX_TOKENS = 64;
/** far above the balance on its own: always refused */
const BIG_MAX_TOKENS = 8192;
/** $0.05: about 66 standard reservations ($0.00075 each); a success costs about half of one */
const CREDITS_USD = 0.05;
const CREDITS_UNITS = 50_000_000;

type Kind = 'ok' | 'ok-stream' | 'slow-stream' | 'fail500' | 'wrong-model' | 'malformed' | 'no-stop' | 'reset-mid' | 'disconnect' | 'too-big';

interface Plan {
  kind: Kind;
  model: string;
  stream: boolean;
  maxTokens: number;
  abort: boolean;
}

type Outcome = 'success' | '402' | 'error-json' | 'error-in-stream' | 'aborted';

interface Result {
  plan: Plan;
  status: number;
  outcome: Outcome;
  reqId: string | null;
  /** the usage the client was told (successes) */
  usage?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  errorType?: string;
  text: string;
}

const MIX: [Kind, number, string, boolean | 'mixed', boolean, number?][] = [
  ['ok', 70, 'bill/demo', false, false],
  ['ok-stream', 70, 'bill/demo', true, false],
  ['slow-stream', 30, 'bill/slow', true, false],
  ['fail500', 20, 'bill/fail500', 'mixed', false],
  ['wrong-model', 15, 'bill/wrong-model', 'mixed', false],
  ['malformed', 15, 'bill/malformed', 'mixed', false],
  ['no-stop', 15, 'bill/no-stop', 'mixed', false],
  ['reset-mid', 15, 'bill/reset-mid', true, false],
  ['disconnect', 30, 'bill/slow', true, true],
  ['too-big', 20, 'bill/demo', 'mixed', false, BIG_MAX_TOKENS],
];

function plans(): Plan[] {
  const out: Plan[] = [];
  for (const [kind, n, model, stream, abort, maxTokens] of MIX) {
    for (let i = 0; i < n; i++) out.push({ kind, model, stream: stream === 'mixed' ? i % 2 === 0 : stream, maxTokens: maxTokens ?? MAX_TOKENS, abort });
  }
  // deterministic interleaving (a linear congruential shuffle)
  let seed = 42;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

function toUsage(u: WireUsage): NonNullable<Result['usage']> {
  return { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 };
}

async function fire(url: string, plan: Plan): Promise<Result> {
  const ac = new AbortController();
  const body = { model: plan.model, max_tokens: plan.maxTokens, stream: plan.stream, messages: [{ role: 'user', content: TEXT }] };
  const res = await fetch(`${url}/v1/messages`, { method: 'POST', headers: headersFor(TEST_KEY), body: JSON.stringify(body), signal: ac.signal });
  const reqId = localRequestId(res.headers);
  if (plan.abort && res.status === 200) {
    // the client goes away after the first bytes of the stream
    const reader = res.body!.getReader();
    const first = await reader.read();
    ac.abort();
    await reader.read().catch(() => undefined);
    return { plan, status: res.status, outcome: 'aborted', reqId, text: Buffer.from(first.value ?? []).toString('utf8') };
  }
  const text = await res.text();
  const result: Result = { plan, status: res.status, outcome: 'error-json', reqId, text };
  if (res.status === 402) result.outcome = '402';
  if (res.status !== 200) {
    try {
      result.errorType = (JSON.parse(text) as { error: { type: string } }).error.type;
    } catch {
      result.errorType = 'unparsable';
    }
    return result;
  }
  if (!plan.stream) {
    const message = JSON.parse(text) as { type: string; usage: WireUsage };
    result.outcome = 'success';
    result.usage = toUsage(message.usage);
    return result;
  }
  const frames = parseSse(text);
  const last = frames[frames.length - 1];
  if (last?.event !== 'message_stop') {
    result.outcome = 'error-in-stream';
    if (last?.event === 'error') result.errorType = (JSON.parse(last.data) as { error: { type: string } }).error.type;
    return result;
  }
  result.outcome = 'success';
  let usage: WireUsage = {};
  for (const f of frames) {
    const d = JSON.parse(f.data) as { type: string; message?: { usage: WireUsage }; usage?: WireUsage };
    if (d.type === 'message_start') usage = { ...d.message!.usage };
    if (d.type === 'message_delta') usage = { ...usage, ...d.usage };
  }
  result.usage = toUsage(usage);
  return result;
}

t.test('300 simultaneous requests against a balance that covers only part of them', async (t) => {
  const store = fileStoreConfig(MODELS, {
    orgs: [{ id: 'acme', credits: CREDITS_USD, projects: [{ id: 'web', environments: [{ id: 'production' }] }] }],
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
  }, 5);

  const all = plans();
  t.equal(all.length, 300);
  const t0 = Date.now();
  const results = await Promise.all(all.map((p) => fire(gw.url, p)));
  t.comment(`all answered in ${Date.now() - t0} ms`);
  // the gateway ends aborted requests after the client has gone: wait for the last holds to end
  let open = -1;
  for (let i = 0; i < 200; i++) {
    open = view.reservations().length;
    if (open === 0 && view.org('acme').reserved === 0) break;
    await sleep(25);
  }
  clearInterval(watch);
  t.comment(`holds ended ${Date.now() - t0} ms after the start`);
  t.equal(open, 0, 'no reservation left open while the gateway is still running');

  const count = (pred: (r: Result) => boolean): number => results.filter(pred).length;
  const byOutcome: Record<string, number> = {};
  for (const r of results) byOutcome[`${r.plan.kind}:${r.outcome}`] = (byOutcome[`${r.plan.kind}:${r.outcome}`] ?? 0) + 1;
  t.comment(`outcomes: ${JSON.stringify(byOutcome)}`);
  t.comment(`ledger samples during the run: ${samples}; lowest balance ${minBalance}, lowest available ${minAvailable}, most held ${maxReserved} units`);

  // every request ended the way its kind allows
  for (const r of results) {
    const allowed: Record<Kind, Outcome[]> = {
      ok: ['success', '402'],
      'ok-stream': ['success', '402'],
      'slow-stream': ['success', '402'],
      fail500: ['error-json', '402'],
      'wrong-model': ['error-json', 'error-in-stream', '402'],
      malformed: ['error-json', 'error-in-stream', '402'],
      'no-stop': ['error-json', 'error-in-stream', '402'],
      'reset-mid': ['error-in-stream', '402'],
      disconnect: ['aborted', '402'],
      'too-big': ['402'],
    };
    if (!allowed[r.plan.kind].includes(r.outcome)) t.fail(`${r.plan.kind} (stream ${r.plan.stream}) ended as ${r.outcome} ${r.status}: ${r.text.slice(0, 300)}`);
    if (r.outcome === '402') {
      t.equal(r.errorType, 'billing_error', '402 is billing_error');
      t.match(r.text, /Insufficient credits|Spend cap/, '402 says why');
    }
  }
  const refused = count((r) => r.outcome === '402');
  const served = results.length - refused;
  t.equal(count((r) => r.plan.kind === 'too-big' && r.outcome === '402'), 20, 'a request whose reservation exceeds the whole balance is always refused');
  t.ok(count((r) => r.plan.kind !== 'too-big' && r.outcome === '402') > 0, 'the balance ran out: affordable requests were refused too');
  for (const kind of ['ok', 'ok-stream', 'slow-stream', 'fail500', 'malformed', 'no-stop', 'reset-mid', 'disconnect', 'wrong-model'] as Kind[]) {
    t.ok(count((r) => r.plan.kind === kind && r.outcome !== '402') > 0, `some ${kind} requests were served`);
  }

  // refused requests never reached the provider: one upstream call per served request
  const upstream = (await gw.simRequests()).filter((r) => r.path === '/v1/messages');
  t.equal(upstream.length, served, `the provider saw exactly the ${served} served requests (${refused} refused)`);

  t.equal(minBalance >= 0, true, 'the balance never went below zero during the run');
  t.equal(minAvailable >= 0, true, 'the holds never exceeded the balance during the run');

  // the gateway is done; stop it and read the ledger
  const t1 = Date.now();
  t.equal(await gw.stop('SIGTERM'), 0, 'graceful exit');
  t.comment(`stopped in ${Date.now() - t1} ms`);
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
  t.equal(cli.reduce((s, r) => s + (r.costUnits as number), 0), settled, 'credits usage sums to the same spend');

  // every row: cost = the cost of its recorded tokens at the served model's prices (or 0 when released)
  let badRows = 0;
  for (const r of rows) {
    const exact = expectedCost(BILL_PRICING, rowUsage(r));
    if (r.cost !== exact) {
      badRows++;
      t.fail(`row ${r.request_id} (${r.model_served}, ${r.status} ${r.error_code}) cost ${r.cost}, its tokens cost ${exact}`);
    }
  }
  t.equal(badRows, 0, 'every usage row is charged exactly the cost of its recorded tokens');

  let checkedSuccess = 0;
  for (const r of results) {
    if (r.outcome === '402') {
      if (r.reqId !== null) t.notOk(byId.has(r.reqId), 'no usage row for a refused request');
      continue;
    }
    const row = r.reqId === null ? undefined : byId.get(r.reqId);
    if (!row) {
      t.fail(`no usage row for served ${r.plan.kind} request ${r.reqId}`);
      continue;
    }
    t.equal(row.model_served, r.plan.model);
    if (r.outcome === 'success') {
      // charged exactly its computed cost, from what the client was told it used
      const told = r.usage!;
      const cost = expectedCost(BILL_PRICING, told);
      if (row.status !== 200 || row.error_code !== null || row.cost !== cost || row.input_tokens !== told.input || row.output_tokens !== told.output) {
        t.fail(`success ${r.reqId}: row ${JSON.stringify(row)} vs client usage ${JSON.stringify(told)} (cost ${cost})`);
      } else checkedSuccess++;
      if (!(cost > 0)) t.fail('a success costs something');
    } else if (r.plan.kind === 'fail500' || r.plan.kind === 'wrong-model') {
      // failed before any validated usage: nothing charged
      t.equal(row.cost, 0, `${r.plan.kind} is not charged`);
      t.not(row.status, 200);
    } else {
      // Messages, failed after provider work: the validated usage so far (message_start at least)
      t.ok(row.error_code !== null, `${r.plan.kind} recorded as failed`);
      if (r.plan.stream) t.ok(row.cost > 0 && row.input_tokens > 0, `${r.plan.kind} mid-stream: the usage incurred so far is charged`);
    }
  }
  t.equal(checkedSuccess, count((r) => r.outcome === 'success'), 'every success charged exactly the cost of the usage its client saw');
});
