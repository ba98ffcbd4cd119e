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
import { credits, parseSse } from '../helpers/messages.js';
import { UNITS_PER_USD } from '../../lib/store/types.js';
import { BILL_PRICING, billModel, chatHeaders, expectedCost, fileStoreConfig, headersFor, LedgerView, localRequestId, rowUsage, sleep, TEST_KEY, type UsageRow } from '../helpers/billing.js';

const chatModel = (id: string, upstream: string): Record<string, unknown> => ({
  ...billModel(id, upstream),
  family: 'openai',
  deployments: [{ provider: 'sim-openai', model: upstream, api: 'chat' }],
});

const MODELS = [
  billModel('bill/demo', 'claude-bill'),
  billModel('bill/slow', 'claude-bill;delay=20;deltas=20'),
  billModel('bill/fail500', 'fault:500'),
  billModel('bill/fail529', 'fault:529'),
  billModel('bill/non-finite', 'fault:non-finite'),
  billModel('bill/bad-index', 'fault:bad-index'),
  billModel('bill/wrong-model', 'fault:wrong-model'),
  billModel('bill/malformed', 'fault:malformed-sse'),
  billModel('bill/no-stop', 'fault:no-stop'),
  billModel('bill/reset-mid', 'fault:reset-mid'),
  chatModel('billchat/demo', 'gpt-bill'),
  chatModel('billchat/slow', 'gpt-bill;delay=20;deltas=20'),
  chatModel('billchat/fail500', 'fault:500'),
  chatModel('billchat/fail429', 'fault:429'),
  chatModel('billchat/wrong-model', 'fault:wrong-model'),
  chatModel('billchat/malformed', 'fault:malformed-sse'),
];

/** 30 words, under the demo's 200-character echo: the answer has 35 output tokens, below max_tokens. */
const TEXT = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
const MAX_TOKENS = 64;
/** far above the balance on its own: always refused */
const BIG_MAX_TOKENS = 16000;
/** $0.10: about 130 standard reservations ($0.00075 each) for 280 affordable requests; a success costs about half of one */
const CREDITS_USD = 0.1;
const CREDITS_UNITS = 100_000_000;

type Endpoint = 'messages' | 'chat';
type Kind =
  | 'ok'
  | 'ok-stream'
  | 'slow-stream'
  | 'fail500'
  | 'fail529'
  | 'fail429'
  | 'wrong-model'
  | 'malformed'
  | 'no-stop'
  | 'non-finite'
  | 'bad-index'
  | 'reset-mid'
  | 'disconnect'
  | 'too-big';
type Outcome = 'success' | '402' | 'error-json' | 'error-in-stream' | 'aborted';

interface Plan {
  endpoint: Endpoint;
  kind: Kind;
  model: string;
  stream: boolean;
  maxTokens: number;
  abort: boolean;
}

interface Seen {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Chat Completions: usage.cost in USD */
  costUsd?: number;
}

interface Result {
  plan: Plan;
  status: number;
  outcome: Outcome;
  reqId: string | null;
  /** the usage the client was told (successes) */
  usage?: Seen;
  /** error.type (Messages) or error.code (Chat) */
  error?: string;
  text: string;
  ms: number;
}

const ALLOWED: Record<Kind, Outcome[]> = {
  ok: ['success', '402'],
  'ok-stream': ['success', '402'],
  'slow-stream': ['success', '402'],
  fail500: ['error-json', '402'],
  fail529: ['error-json', '402'],
  fail429: ['error-json', '402'],
  'wrong-model': ['error-json', 'error-in-stream', '402'],
  malformed: ['error-json', 'error-in-stream', '402'],
  'no-stop': ['error-json', 'error-in-stream', '402'],
  'non-finite': ['error-json', 'error-in-stream', '402'],
  'bad-index': ['error-json', 'error-in-stream', '402'],
  'reset-mid': ['error-in-stream', '402'],
  disconnect: ['aborted', '402'],
  'too-big': ['402'],
};

/** [endpoint, kind, how many, model, stream (mixed: every other one), abort after the first bytes, max_tokens] */
const MIX: [Endpoint, Kind, number, string, boolean | 'mixed', boolean, number?][] = [
  ['messages', 'ok', 36, 'bill/demo', false, false],
  ['messages', 'ok-stream', 36, 'bill/demo', true, false],
  ['messages', 'slow-stream', 18, 'bill/slow', true, false],
  ['messages', 'fail500', 8, 'bill/fail500', 'mixed', false],
  ['messages', 'fail529', 6, 'bill/fail529', 'mixed', false],
  ['messages', 'wrong-model', 8, 'bill/wrong-model', 'mixed', false],
  ['messages', 'malformed', 8, 'bill/malformed', 'mixed', false],
  ['messages', 'no-stop', 8, 'bill/no-stop', 'mixed', false],
  ['messages', 'non-finite', 6, 'bill/non-finite', 'mixed', false],
  ['messages', 'bad-index', 6, 'bill/bad-index', true, false],
  ['messages', 'reset-mid', 8, 'bill/reset-mid', true, false],
  ['messages', 'disconnect', 18, 'bill/slow', true, true],
  ['messages', 'too-big', 12, 'bill/demo', 'mixed', false, BIG_MAX_TOKENS],
  ['chat', 'ok', 30, 'billchat/demo', false, false],
  ['chat', 'ok-stream', 30, 'billchat/demo', true, false],
  ['chat', 'slow-stream', 10, 'billchat/slow', true, false],
  ['chat', 'fail500', 8, 'billchat/fail500', 'mixed', false],
  ['chat', 'fail429', 6, 'billchat/fail429', 'mixed', false],
  ['chat', 'wrong-model', 8, 'billchat/wrong-model', 'mixed', false],
  ['chat', 'malformed', 10, 'billchat/malformed', 'mixed', false],
  ['chat', 'disconnect', 12, 'billchat/slow', true, true],
  ['chat', 'too-big', 8, 'billchat/demo', 'mixed', false, BIG_MAX_TOKENS],
];

function plans(): Plan[] {
  const out: { plan: Plan; at: number }[] = [];
  for (const [endpoint, kind, n, model, stream, abort, maxTokens] of MIX) {
    for (let i = 0; i < n; i++) {
      const plan = { endpoint, kind, model, stream: stream === 'mixed' ? i % 2 === 0 : stream, maxTokens: maxTokens ?? MAX_TOKENS, abort };
      // spread every kind evenly over the burst, so each kind gets its share of what the balance covers
      out.push({ plan, at: (i + 0.5) / n });
    }
  }
  return out.sort((a, b) => a.at - b.at).map((p) => p.plan);
}

interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  cost: number;
}

function fromAnthropic(u: AnthropicUsage): Seen {
  return { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 };
}

/** the demo model writes no cache on Chat: prompt tokens = input + cache reads */
function fromChat(u: ChatUsage): Seen {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return { input: u.prompt_tokens - cached, output: u.completion_tokens, cacheRead: cached, cacheWrite: 0, costUsd: u.cost };
}

async function fire(url: string, plan: Plan): Promise<Result> {
  const started = Date.now();
  const ac = new AbortController();
  const body = { model: plan.model, max_tokens: plan.maxTokens, stream: plan.stream, messages: [{ role: 'user', content: TEXT }] };
  const path = plan.endpoint === 'messages' ? '/v1/messages' : '/v1/chat/completions';
  const headers = plan.endpoint === 'messages' ? headersFor(TEST_KEY) : chatHeaders(TEST_KEY);
  const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: ac.signal });
  const result: Result = { plan, status: res.status, outcome: 'error-json', reqId: localRequestId(res.headers), text: '', ms: 0 };
  if (plan.abort && res.status === 200) {
    // the client goes away after the first bytes of the stream
    const reader = res.body!.getReader();
    const first = await reader.read();
    ac.abort();
    await reader.read().catch(() => undefined);
    return { ...result, outcome: 'aborted', text: Buffer.from(first.value ?? []).toString('utf8'), ms: Date.now() - started };
  }
  result.text = await res.text();
  result.ms = Date.now() - started;
  if (res.status !== 200) {
    if (res.status === 402) result.outcome = '402';
    try {
      const e = (JSON.parse(result.text) as { error: { type?: string; code?: string } }).error;
      result.error = e.type ?? e.code;
    } catch {
      result.error = 'unparsable';
    }
    return result;
  }
  if (!plan.stream) {
    const json = JSON.parse(result.text) as { usage: AnthropicUsage & ChatUsage };
    result.outcome = 'success';
    result.usage = plan.endpoint === 'messages' ? fromAnthropic(json.usage) : fromChat(json.usage);
    return result;
  }
  const frames = parseSse(result.text);
  if (plan.endpoint === 'messages') {
    const last = frames.at(-1);
    if (last?.event !== 'message_stop') {
      result.outcome = 'error-in-stream';
      if (last?.event === 'error') result.error = (JSON.parse(last.data) as { error: { type: string } }).error.type;
      return result;
    }
    let usage: AnthropicUsage = {};
    for (const f of frames) {
      const d = JSON.parse(f.data) as { type: string; message?: { usage: AnthropicUsage }; usage?: AnthropicUsage };
      if (d.type === 'message_start') usage = { ...d.message!.usage };
      if (d.type === 'message_delta') usage = { ...usage, ...d.usage };
    }
    result.outcome = 'success';
    result.usage = fromAnthropic(usage);
    return result;
  }
  // Chat: chunks, the usage chunk (no choices), then [DONE]; a failure is a chunk with `error`
  const chunks = frames.filter((f) => f.data !== '[DONE]').map((f) => JSON.parse(f.data) as { choices: unknown[]; usage?: ChatUsage; error?: { code: string } });
  const failed = chunks.find((c) => c.error !== undefined);
  const final = chunks.at(-1);
  if (failed || frames.at(-1)?.data !== '[DONE]' || !final?.usage || final.choices.length !== 0) {
    result.outcome = 'error-in-stream';
    result.error = failed?.error?.code;
    return result;
  }
  result.outcome = 'success';
  result.usage = fromChat(final.usage);
  return result;
}

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
