// SIGTERM with streams in flight: the gateway stops accepting, lets the streams finish within the
// grace period and settles them; a stream still running at the end of the grace period is cut (an
// in-band error) and its reservation is ended too, charged the validated usage so far. Exit 0, and
// no reservation is left in the store.
import { existsSync, statSync } from 'node:fs';
import t, { type Test } from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { eventually, parseSse } from '../helpers/messages.js';
import { BILL_PRICING, billModel, expectedCost, fileStoreConfig, headersFor, LedgerView, localRequestId, rowUsage, TEST_KEY } from '../helpers/billing.js';

const MODELS = [
  // about half a second of stream: finishes inside the grace period
  billModel('bill/slow', 'claude-bill;delay=25;deltas=20'),
  // about 9 s of stream: cut when the grace period ends
  billModel('bill/long', 'claude-bill;delay=300;deltas=30'),
];

const CREDITS_UNITS = 100_000_000_000;

interface Stream {
  reqId: string | null;
  text: Promise<string>;
}

async function open(t: Test, url: string, model: string): Promise<Stream> {
  const res = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: headersFor(TEST_KEY),
    body: JSON.stringify({ model, max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'stream this slowly please' }] }),
  });
  t.equal(res.status, 200, `${model} stream started`);
  const reader = res.body!.getReader();
  const first = await reader.read();
  const chunks = [Buffer.from(first.value ?? [])];
  const rest = async (): Promise<string> => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        chunks.push(Buffer.from(r.value));
      }
    } catch {
      // the connection may be cut at the end of the grace period
    }
    return Buffer.concat(chunks).toString('utf8');
  };
  return { reqId: localRequestId(res.headers), text: rest() };
}

t.test('SIGTERM: in-flight streams finish and are settled; a stream past the grace period is cut and settled', async (t) => {
  const store = fileStoreConfig(MODELS, { shutdownGraceMs: 3000 });
  const gw = await startGateway(store.config);
  t.teardown(() => gw.stop('SIGKILL'));
  const view = new LedgerView(store.db);
  t.teardown(() => view.close());

  // the long stream first: a client's first byte comes with the first content frame (the provider's
  // preamble is held back so that a failure before it can fail over), which for this model comes after
  // several 300 ms frames, by when four slow streams opened beside it would already have ended
  const long = await open(t, gw.url, 'bill/long');
  const streams = [...(await Promise.all(Array.from({ length: 4 }, () => open(t, gw.url, 'bill/slow')))), long];
  t.equal(view.reservations().length, 5, 'five reservations held');

  const exited = gw.stop('SIGTERM');
  // once shutdown began, a new request is not served (the port is closed, or 503 on a kept-alive connection)
  t.ok(await eventually(async () => gw.logs.some((l) => l.msg === 'shutting down')), 'shutting down');
  const late = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headersFor(TEST_KEY), body: JSON.stringify({ model: 'bill/slow', max_tokens: 16, messages: [{ role: 'user', content: 'late' }] }) }).then(
    (r) => r.status,
    () => 'refused',
  );
  t.ok(late === 'refused' || late === 503, `a request after SIGTERM is not served (${String(late)})`);
  t.equal(await exited, 0, 'exit 0');
  // the checkpoint worker's last pages went into the database file at shutdown: nothing left in the WAL
  const wal = `${store.db}-wal`;
  t.equal(existsSync(wal) ? statSync(wal).size : 0, 0, 'the WAL is empty after a graceful shutdown');
  const texts = await Promise.all(streams.map((s) => s.text));

  const finished = texts.slice(0, 4);
  for (const text of finished) t.equal(parseSse(text).at(-1)?.event, 'message_stop', 'the in-flight stream finished');
  const cut = parseSse(texts[4]!);
  t.equal(cut.at(-1)?.event, 'error', 'the stream past the grace period ends with an error event');
  t.match(cut.at(-1)?.data ?? '', /shut down/, 'saying the gateway shut down');

  // the ledger: every reservation ended, each request charged exactly its recorded usage
  t.same(view.reservations(), [], 'no reservation left');
  const rows = view.usage('acme');
  t.equal(rows.length, 5, 'five usage rows');
  const byId = new Map(rows.map((r) => [r.request_id, r]));
  for (const [i, s] of streams.entries()) {
    const row = byId.get(s.reqId ?? '');
    if (!row) {
      t.fail(`no usage row for ${s.reqId}`);
      continue;
    }
    t.equal(row.cost, expectedCost(BILL_PRICING, rowUsage(row)), 'charged exactly the cost of its recorded tokens');
    if (i < 4) {
      t.match(row, { status: 200, error_code: null }, 'a finished stream is a success');
      // what the client saw in message_delta
      const delta = JSON.parse(parseSse(texts[i]!).find((f) => f.event === 'message_delta')!.data) as { usage: { output_tokens: number } };
      t.equal(row.output_tokens, delta.usage.output_tokens, 'billed the output the client saw');
    } else {
      t.equal(row.error_code, 'GW_ERR_UNAVAILABLE', 'the cut stream is recorded as cut by the shutdown');
      t.ok(row.cost > 0, 'the validated usage so far is charged (Messages, provider work done)');
    }
  }
  const settled = rows.reduce((s, r) => s + r.cost, 0);
  t.match(view.org('acme'), { balance: CREDITS_UNITS - settled, reserved: 0, spent: settled }, 'balance = credits − settled spend');
});
