// gateway-auto's decision through bin/gateway: the cheapest candidate within the target of the best
// predicted quality (`router.target`, overridden by `orgs[].router.target`), billed at the chosen
// model's rate, reported in the answer's `gateway` object on every endpoint, and explained (top
// candidates with predicted quality and expected cost) in the log line and the usage record. The
// same request always gets the same decision.
import t from 'tap';
import { expectedCost, rowUsage } from '../helpers/billing.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { credits, parseSse } from '../helpers/messages.js';
import { chat, labConfig, labModel, logLine, messages, reload, responses, TEST_KEY, usageRow } from './lab.js';

const THRIFTY_KEY = 'sk-test-thrifty-0000';
// ability 20 keeps the strong model's predicted quality at ~1 on any prompt; ability 0 keeps the
// weak one's near 0.5, far below 0.95 of it, and far above 0.02 of it
const STRONG = labModel('lab/strong', { input: 10, output: 50, cacheRead: 1 }, 20);
const WEAK = labModel('lab/weak', { input: 1, output: 5, cacheRead: 0.1 }, 0);
const { config, db } = labConfig([STRONG, WEAK], {
  orgs: [{ id: 'acme', credits: 100 }, { id: 'thrifty', credits: 100, router: { target: 0.02 } }],
  keys: [
    { id: 'full', key: TEST_KEY, org: 'acme' },
    { id: 'thrifty', key: THRIFTY_KEY, org: 'thrifty' },
  ],
});

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const ask = (text: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: 'gateway-auto', max_tokens: 300, messages: [{ role: 'user', content: text }], ...extra });

t.test('the strongest wins under the default target; an organisation with a low target gets the cheap one, billed at its rate', async (t) => {
  const a = await messages(gw, ask('Explain how a B-tree stays balanced.'));
  t.equal(a.status, 200, a.text);
  t.match(a.body.gateway, { routed: true, routed_model: 'lab/strong', routing_latency_ms: Number });
  t.equal(a.body.model, 'gateway-auto', 'the answer echoes the requested model');
  const b = await messages(gw, ask('Explain how a B-tree stays balanced.'), {}, THRIFTY_KEY);
  t.equal(b.status, 200, b.text);
  t.equal(b.routed, 'lab/weak', "orgs[].router.target 0.02 keeps the weak model's quality within target");

  for (const [answer, org, model] of [[a, 'acme', STRONG], [b, 'thrifty', WEAK]] as const) {
    const row = await usageRow(db, org, answer.reqId);
    t.ok(row, `usage row of ${org}`);
    t.equal(row!.model_served, model.id);
    t.equal(row!.cost, expectedCost(model.pricing as never, rowUsage(row!)), `${org} is billed at ${model.id}'s prices`);
    t.ok(row!.cost > 0);
  }
});

t.test('the decision is explained in the log line and the usage record, and only for routed calls', async (t) => {
  const a = await messages(gw, ask('Which sorting algorithm is stable?'));
  const line = await logLine(gw, a.reqId);
  t.ok(line, 'the request log line');
  const routing = line!.routing as Record<string, any>;
  t.match(routing, { reason: 'router', target: 0.95, choice: 'lab/strong', eligible: 2 });
  t.same(routing.candidates.map((c: { id: string }) => c.id), ['lab/strong', 'lab/weak'], 'best predicted quality first');
  const [strong, weak] = routing.candidates as { quality: number; costUsd: number }[];
  t.ok(strong!.quality > 0.99 && weak!.quality < 0.95 * strong!.quality, `predicted qualities ${strong!.quality} and ${weak!.quality}`);
  t.ok(strong!.costUsd > 5 * weak!.costUsd, `expected costs ${strong!.costUsd} and ${weak!.costUsd} follow the prices`);
  const row = await usageRow(db, 'acme', a.reqId);
  t.same(JSON.parse(row!.routing!), routing, 'the usage record keeps the same decision');
  const printed = (await credits(gw.configFile, 'usage', '--org', 'acme', '--limit', '50')).find((l) => l.requestId === a.reqId);
  t.same(printed?.routing, routing, '`gateway credits usage` prints it');

  const direct = await messages(gw, ask('Which sorting algorithm is stable?', { model: 'lab/weak' }));
  t.equal(direct.status, 200);
  t.equal((await logLine(gw, direct.reqId))!.routing, undefined, 'a direct call has no decision');
  t.equal((await usageRow(db, 'acme', direct.reqId))!.routing, null);
});

t.test('routed answers carry the gateway fields on every endpoint, streamed or not', async (t) => {
  const stream = await messages(gw, ask('hi', { stream: true }));
  const start = parseSse(stream.text).find((f) => f.event === 'message_start');
  t.match(JSON.parse(start!.data).message.gateway, { routed: true, routed_model: 'lab/strong', routing_latency_ms: Number }, 'Messages stream: message_start');
  const c = await chat(gw, { model: 'gateway-auto', messages: [{ role: 'user', content: 'hi' }] });
  t.equal(c.status, 200, c.text);
  t.match(c.body.gateway, { routed: true, routed_model: 'lab/strong', routing_latency_ms: Number }, 'Chat');
  const r = await responses(gw, { model: 'gateway-auto', input: 'hi' });
  t.equal(r.status, 200, r.text);
  t.match(r.body.gateway, { routed: true, routed_model: 'lab/strong', routing_latency_ms: Number }, 'Responses');
  const direct = await chat(gw, { model: 'lab/weak', messages: [{ role: 'user', content: 'hi' }] });
  t.match(direct.body.gateway, { routed: false, routed_model: null, routing_latency_ms: null }, 'a direct call says it was not routed');
});

t.test('the same request gets the same decision', async (t) => {
  const decisions = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const a = await messages(gw, ask('Summarise the plot of Hamlet in two lines.', { tools: [{ name: 'search', input_schema: { type: 'object' } }] }));
    const line = await logLine(gw, a.reqId);
    decisions.add(JSON.stringify({ model: a.routed, routing: line!.routing }));
  }
  t.equal(decisions.size, 1, [...decisions].join('\n'));
});

t.test('router.target is the knob: lowered by a reload, the cheap model is within target for everyone', async (t) => {
  t.match(await reload(gw, { ...config, router: { target: 0.02 } }), { msg: 'config reloaded' });
  const a = await messages(gw, ask('Explain how a B-tree stays balanced.'));
  t.equal(a.routed, 'lab/weak');
  t.match((await logLine(gw, a.reqId))!.routing, { target: 0.02, choice: 'lab/weak' });
});
