// Failover after the provider's 200 head, through bin/gateway (issue #18): every upstream failure
// point before any content reached the client × {stream, JSON} × {Anthropic Messages, OpenAI Chat,
// OpenAI Responses} upstream, on a model of two deployments (the first faulty, the second healthy).
// The Messages client gets the healthy answer whole (one message_start, nothing of the faulty
// deployment's preamble), and the ledger holds exactly one charge, for the healthy answer.
import t, { type Test } from 'tap';
import { startGateway, withModels, baseConfig, type RunningGateway } from '../helpers/gateway.js';
import { expectedCost, LedgerView, localRequestId, rowUsage, BILL_PRICING } from '../helpers/billing.js';
import { dataOf, eventually, events, fileStoreConfig, msg, parseSse, post, upstreamCalls, type Reply } from '../helpers/messages.js';

type Upstream = 'messages' | 'chat' | 'responses';
const UPSTREAMS: Upstream[] = ['messages', 'chat', 'responses'];

/** failure points before any content: the sim's head faults, and the JSON body cut or unreadable */
const BOTH = ['reset-head', 'stall-head', 'reset-preamble', 'stall-preamble', 'end-preamble', 'malformed-first', 'error-preamble'];
const JSON_ONLY = ['reset-mid', 'stall-mid', 'malformed-sse'];
/** failures after the first content frame: too late to fail over */
const AFTER_CONTENT = ['reset-mid', 'stall-mid', 'error-mid'];

const QUICK_A = 'quick-anthropic';
const QUICK_O = 'quick-openai';
const GOOD_MODEL: Record<Upstream, string> = { messages: 'claude-good', chat: 'gpt-good', responses: 'gpt-good' };

function deployment(upstream: Upstream, provider: 'quick' | 'good', model: string): Record<string, unknown> {
  if (upstream === 'messages') return { provider: provider === 'quick' ? QUICK_A : 'sim-anthropic', model };
  return { provider: provider === 'quick' ? QUICK_O : 'sim-openai', model, api: upstream };
}

function model(id: string, upstream: Upstream, deployments: Record<string, unknown>[]): Record<string, unknown> {
  return { id, family: upstream === 'messages' ? 'anthropic' : 'openai', deployments, pricing: { ...BILL_PRICING }, input: ['text'], maxOutputTokens: 32000 };
}

const kinds = [...new Set([...BOTH, ...JSON_ONLY, ...AFTER_CONTENT])];
const base = baseConfig();
const quick = (id: string, protocol: string): Record<string, unknown> => ({ id, protocol, simulated: true, timeoutMs: 2000, idleTimeoutMs: 300 });
const { config } = fileStoreConfig(
  withModels({ ...base, providers: [...(base.providers as Record<string, unknown>[]), quick(QUICK_A, 'anthropic'), quick(QUICK_O, 'openai')] }, [
    ...UPSTREAMS.flatMap((u) =>
      kinds.map((k) => model(`fo/${u}/${k}`, u, [deployment(u, 'quick', `fault:${k};delay=5`), deployment(u, 'good', GOOD_MODEL[u])])),
    ),
    model('fo/all-fail', 'messages', [deployment('messages', 'quick', 'fault:stall-head'), deployment('messages', 'quick', 'fault:reset-preamble')]),
    model('fo/all-overloaded', 'messages', [deployment('messages', 'quick', 'fault:error-preamble'), deployment('messages', 'quick', 'fault:error-preamble')]),
    model('fo/one-malformed', 'messages', [deployment('messages', 'quick', 'fault:malformed-first')]),
  ]),
);
const db = (config.store as string).slice('sqlite:'.length);

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

/** The text and output tokens the client was shown, checking the answer is whole and from one upstream. */
function shown(t: Test, r: Reply, stream: boolean, what: string): { text: string; output: number } {
  t.equal(r.status, 200, `${what}: ${r.text.slice(0, 300)}`);
  if (!stream) {
    const body = JSON.parse(r.text) as { type: string; stop_reason: string; content: { text: string }[]; usage: { output_tokens: number } };
    t.match(body, { type: 'message', stop_reason: 'end_turn' }, `${what}: a whole message`);
    return { text: body.content.map((c) => c.text).join(''), output: body.usage.output_tokens };
  }
  const frames = parseSse(r.text);
  const names = events(frames);
  t.equal(names.filter((e) => e === 'message_start').length, 1, `${what}: one message_start (${names.join(',')})`);
  t.equal(names[0], 'message_start', `${what}: nothing before it`);
  t.equal(names.at(-1), 'message_stop', `${what}: a complete stream`);
  t.notOk(names.includes('error'), `${what}: no error frame`);
  const deltas = frames.filter((f) => f.event === 'content_block_delta').map((f) => dataOf(f).delta.text as string);
  const usage = dataOf(frames.find((f) => f.event === 'message_delta')).usage as { output_tokens: number };
  return { text: deltas.join(''), output: usage.output_tokens };
}

/** One charge for the request, at the healthy answer's usage, and the healthy deployment's provider. */
async function chargedOnce(t: Test, ledger: LedgerView, r: Reply, output: number, provider: string, what: string): Promise<void> {
  const id = localRequestId(r.headers);
  const row = await ledger.row('acme', id);
  t.ok(row, `${what}: a usage record for ${id}`);
  if (!row) return;
  t.equal(ledger.usage('acme').filter((u) => u.request_id === id).length, 1, `${what}: one usage record`);
  t.equal(row.status, 200, `${what}: recorded as answered`);
  t.equal(row.provider, provider, `${what}: charged to the healthy deployment`);
  t.equal(row.output_tokens, output, `${what}: the usage the client was shown`);
  t.equal(row.cost, expectedCost(BILL_PRICING, rowUsage(row)), `${what}: its cost, once`);
}

t.test('a failure after the head but before any content moves on to the next deployment', async (t) => {
  const ledger = new LedgerView(db);
  t.teardown(() => ledger.close());
  const spentBefore = ledger.org('acme').spent;
  let costs = 0;
  for (const upstream of UPSTREAMS) {
    const good = upstream === 'messages' ? 'sim-anthropic' : 'sim-openai';
    const faulty = upstream === 'messages' ? QUICK_A : QUICK_O;
    for (const [kind, stream] of [...BOTH.flatMap((k) => [[k, true], [k, false]] as [string, boolean][]), ...JSON_ONLY.map((k): [string, boolean] => [k, false])]) {
      const what = `${upstream} ${kind} stream=${stream}`;
      await gw.clearSim();
      const warnings = gw.logs.length;
      const r = await post(gw, msg(`fo/${upstream}/${kind}`, { stream }));
      const got = shown(t, r, stream, what);
      t.match(got.text, new RegExp(`^Hello from ${GOOD_MODEL[upstream]}! You said: Hello there`), `${what}: the healthy answer`);
      t.same((await upstreamCalls(gw)).map((c) => c.body.model), [`fault:${kind};delay=5`, GOOD_MODEL[upstream]], `${what}: the faulty deployment, then the healthy one`);
      // the log line may reach this process after the answer does
      const warned = await eventually(async () => gw.logs.slice(warnings).find((l) => l.provider === faulty && typeof l.msg === 'string' && /trying the next deployment/.test(l.msg)));
      t.ok(warned, `${what}: the failover is logged`);
      await chargedOnce(t, ledger, r, got.output, good, what);
      costs += (await ledger.row('acme', localRequestId(r.headers)))?.cost ?? 0;
    }
  }
  t.equal(ledger.org('acme').spent - spentBefore, costs, 'the org was charged exactly the healthy answers');
});

t.test('once content reached the client there is no failover: the in-band error, as before', async (t) => {
  for (const upstream of UPSTREAMS) {
    for (const kind of AFTER_CONTENT) {
      const what = `${upstream} ${kind}`;
      await gw.clearSim();
      const r = await post(gw, msg(`fo/${upstream}/${kind}`, { stream: true }));
      t.equal(r.status, 200, `${what}: the stream had begun`);
      const names = events(parseSse(r.text));
      t.ok(names.includes('content_block_delta'), `${what}: content went out (${names.join(',')})`);
      t.equal(names.at(-1), 'error', `${what}: ends with the in-band error`);
      t.equal((await upstreamCalls(gw)).length, 1, `${what}: no second deployment`);
    }
  }
});

t.test('every deployment failed after its head: the final error, as for failed heads', async (t) => {
  const all = await post(gw, msg('fo/all-fail', { stream: true }));
  t.equal(all.status, 503, all.text);
  t.match(JSON.parse(all.text), { type: 'error', error: { type: 'overloaded_error', message: /All 2 provider deployment\(s\) of model fo\/all-fail failed: quick-anthropic: timed out before any content; quick-anthropic: connection failed \(\w+\) before any content/ } });

  const overloaded = await post(gw, msg('fo/all-overloaded', { stream: true }));
  t.equal(overloaded.status, 529, overloaded.text);
  t.match(JSON.parse(overloaded.text), { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });

  const malformed = await post(gw, msg('fo/one-malformed'));
  t.equal(malformed.status, 503, malformed.text);
  t.match(JSON.parse(malformed.text), { error: { message: /quick-anthropic: The provider response failed an integrity check: .*invalid JSON/ } });
});
