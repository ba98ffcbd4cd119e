// A gateway killed with SIGKILL mid-stream cannot end its reservations: they stay in the store, and
// the next start on the same file releases them (nothing charged), with a warn line carrying the count.
import t, { type Test } from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { credits, eventually } from '../helpers/messages.js';
import { billModel, fileStoreConfig, headersFor, LedgerView, TEST_KEY } from '../helpers/billing.js';

const MODELS = [
  billModel('bill/demo', 'claude-bill'),
  // about 10 s of stream: still running when the process is killed
  billModel('bill/long', 'claude-bill;delay=200;deltas=50'),
  // answers after 2.5 s (below the provider's 3 s header timeout): a non-streaming request in flight
  billModel('bill/late', 'fault:slow;ms=2500'),
];

const CREDITS_UNITS = 100_000_000_000;

interface Pending {
  ac: AbortController;
  done: Promise<unknown>;
}

/** Start a request and resolve once the gateway holds its reservation (first bytes, or a moment for a JSON answer). */
async function start(t: Test, url: string, model: string, stream: boolean): Promise<Pending> {
  const ac = new AbortController();
  const res = fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: headersFor(TEST_KEY),
    body: JSON.stringify({ model, max_tokens: 256, stream, messages: [{ role: 'user', content: 'count slowly' }] }),
    signal: ac.signal,
  });
  if (!stream) return { ac, done: res.then((r) => r.text()).catch(() => undefined) };
  const r = await res;
  t.equal(r.status, 200, 'the stream started');
  const reader = r.body!.getReader();
  const first = await reader.read();
  t.match(Buffer.from(first.value ?? []).toString('utf8'), /message_start/, 'first bytes arrived');
  const drain = async (): Promise<void> => {
    for (;;) if ((await reader.read()).done) return;
  };
  return { ac, done: drain().catch(() => undefined) };
}

t.test('SIGKILL mid-stream leaves the reservations; the next start releases them', async (t) => {
  const store = fileStoreConfig(MODELS);
  const first = await startGateway(store.config);
  t.teardown(() => first.stop('SIGKILL'));
  const view = new LedgerView(store.db);
  t.teardown(() => view.close());
  const pending = [await start(t, first.url, 'bill/long', true), await start(t, first.url, 'bill/long', true), await start(t, first.url, 'bill/late', false)];
  const held = await eventually(async () => (view.reservations().length === 3 ? view.reservations() : undefined));
  t.equal(held?.length, 3, 'three reservations held while the requests run');
  const heldUnits = held!.reduce((s, r) => s + r.amount, 0);
  t.equal(view.org('acme').reserved, heldUnits, 'the organization counts them as reserved');

  t.equal(await first.stop('SIGKILL'), null, 'killed (no exit code)');
  t.equal(first.proc.signalCode, 'SIGKILL');
  t.notOk(first.logs.some((l) => l.msg === 'released reservations left by a previous process'), 'a fresh store had nothing to release');
  for (const p of pending) {
    p.ac.abort();
    await p.done;
  }

  // nothing ended them: they are still in the file
  t.equal(view.reservations().length, 3, 'the reservations survive the kill');
  const [before] = await credits(store.file, 'show', '--org', 'acme');
  t.match(before, { balanceUnits: CREDITS_UNITS, reservedUnits: heldUnits, availableUnits: CREDITS_UNITS - heldUnits, spentUnits: 0 }, 'credits show sees the stale hold');

  // the next start on the same file releases them
  const second = await startGateway(store.config);
  t.teardown(() => second.stop('SIGKILL'));
  const warn = await eventually(async () => second.logs.find((l) => l.msg === 'released reservations left by a previous process'));
  t.match(warn, { level: 40, released: 3 }, 'a warn line with the count');
  t.same(view.reservations(), [], 'no reservation left');
  t.match(view.org('acme'), { balance: CREDITS_UNITS, reserved: 0, spent: 0 }, 'the balance is whole again: nothing was charged');
  t.same(view.usage('acme'), [], 'no usage was recorded for the killed requests');

  // and the restarted gateway bills normally
  const res = await fetch(`${second.url}/v1/messages`, { method: 'POST', headers: headersFor(TEST_KEY), body: JSON.stringify({ model: 'bill/demo', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }) });
  t.equal(res.status, 200);
  await res.text();
  t.equal(await second.stop('SIGTERM'), 0);
  const rows = view.usage('acme');
  t.equal(rows.length, 1);
  t.ok(rows[0]!.cost > 0);
  t.match(view.org('acme'), { balance: CREDITS_UNITS - rows[0]!.cost, reserved: 0, spent: rows[0]!.cost }, 'charged exactly once, nothing held');
  t.same(view.reservations(), []);
});

