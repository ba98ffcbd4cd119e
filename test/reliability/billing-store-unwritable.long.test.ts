// A store that cannot be written, through bin/gateway. The failure is made by the documented test
// switch GATEWAY_STORE_FAULT_FILE (lib/store/fault-switch.ts: SQLite's own SQLITE_READONLY or, with
// max_page_count, SQLITE_FULL), since as root file permissions stop nothing:
// - a settle the store refuses is kept (the hold stays) and retried until it commits, so the
//   delivered answer is billed once the store takes writes again;
// - meanwhile new requests get 503 in their dialect's envelope with `retry-after`, before any
//   provider call;
// - SIGTERM while a settle is still refused exits non-zero and names the reservation left;
// - a full store answers 503, never 500, and the ledger is exact once it has room again.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { eventually, parseSse, upstreamCalls } from '../helpers/messages.js';
import { BILL_PRICING, billModel, chatHeaders, expectedCost, fileStoreConfig, headersFor, LedgerView, localRequestId, rowUsage, TEST_KEY, type FileStore } from '../helpers/billing.js';

const MODELS = [
  // about half a second of stream: the store is made unwritable while it runs
  billModel('bill/slow', 'claude-bill;delay=40;deltas=12'),
  billModel('bill/quick', 'claude-bill'),
];

interface Run {
  store: FileStore;
  gw: RunningGateway;
  view: LedgerView;
  fault: string;
}

async function start(t: Test, store: FileStore = fileStoreConfig(MODELS)): Promise<Run> {
  const fault = join(store.dir, 'store-fault');
  const gw = await startGateway(store.config, { env: { GATEWAY_STORE_FAULT_FILE: fault } });
  const view = new LedgerView(store.db);
  t.teardown(async () => {
    view.close();
    await gw.stop('SIGKILL');
  });
  return { store, gw, view, fault };
}

/** A stream that has begun (its reservation is held); `rest` reads it to the end. */
async function openStream(gw: RunningGateway): Promise<{ reqId: string | null; rest: Promise<string> }> {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: headersFor(TEST_KEY),
    body: JSON.stringify({ model: 'bill/slow', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'stream this please' }] }),
  });
  const reader = res.body!.getReader();
  const first = await reader.read();
  const chunks = [Buffer.from(first.value ?? [])];
  const rest = (async (): Promise<string> => {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      chunks.push(Buffer.from(r.value));
    }
    return Buffer.concat(chunks).toString('utf8');
  })();
  return { reqId: localRequestId(res.headers), rest };
}

const quick = (gw: RunningGateway): Promise<Response> =>
  fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: headersFor(TEST_KEY), body: JSON.stringify({ model: 'bill/quick', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }) });

/** A stream is delivered while the store turns read-only: its settle fails and waits in the backlog. */
async function deliverUnbillable(t: Test, run: Run): Promise<{ reqId: string | null }> {
  const stream = await openStream(run.gw);
  t.equal(run.view.reservations().length, 1, 'the stream holds a reservation');
  writeFileSync(run.fault, 'readonly');
  const text = await stream.rest;
  t.equal(parseSse(text).at(-1)?.event, 'message_stop', 'the client got the whole answer');
  t.ok(await eventually(async () => run.gw.logs.some((l) => l.msg === 'settle failed: the store cannot be written; retrying')), 'the failed settle is logged and kept');
  return { reqId: stream.reqId };
}

t.test('a settle the store refused is retried until it commits; new requests get 503 meanwhile', async (t) => {
  const run = await start(t);
  const { gw, view } = run;
  const { reqId } = await deliverUnbillable(t, run);
  t.equal(view.reservations().length, 1, 'the hold stays in the store while the settle waits');
  t.equal(view.org('acme').spent, 0, 'not charged yet');

  await gw.clearSim();
  const refused = await quick(gw);
  const body = (await refused.json()) as { type: string; error: { type: string; message: string }; request_id: string };
  t.equal(refused.status, 503, 'a new request is refused with 503');
  t.match(body, { type: 'error', error: { type: 'api_error', message: /cannot record billing/ } }, 'in the Messages envelope');
  t.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/, 'with retry-after in seconds');
  const chat = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(TEST_KEY), body: JSON.stringify({ model: 'bill/quick', messages: [{ role: 'user', content: 'hi' }] }) });
  t.equal(chat.status, 503, 'Chat Completions too');
  t.match(await chat.json(), { error: { code: 'service_unavailable' } }, 'in the OpenAI envelope');
  t.ok(chat.headers.get('retry-after'), 'with retry-after');
  t.same(await upstreamCalls(gw), [], 'no provider work for a refused request');

  // the store takes writes again: the retry bills the delivered answer
  rmSync(run.fault);
  const row = await view.row('acme', reqId, 10_000);
  t.ok(row, 'the usage record is written by the retry');
  if (row) {
    t.match(row, { status: 200, error_code: null });
    t.equal(row.cost, expectedCost(BILL_PRICING, rowUsage(row)), 'charged its cost');
    t.ok(row.cost > 0);
    t.match(view.org('acme'), { spent: row.cost, reserved: 0 }, 'the organization is charged, the hold ended');
    // the log lines follow the commit (pino writes asynchronously): wait for them
    const line = await eventually(async () => gw.logs.find((l) => l.msg === 'request' && l.reqId === reqId));
    t.match(line, { status: 200, costUsd: row.cost / 1e9 }, 'the request log line gives the cost the retry charged');
  }
  t.same(view.reservations(), [], 'no reservation left');
  t.ok(await eventually(async () => gw.logs.some((l) => l.msg === 'settles committed after retry')), 'the recovery is logged');
  t.equal((await quick(gw)).status, 200, 'new requests are served again');
  t.equal(await gw.stop('SIGTERM'), 0, 'a clean shutdown exits 0');
});

t.test('SIGTERM while a settle is still refused: exit non-zero, naming the reservation left', async (t) => {
  const run = await start(t);
  const { gw, view, store } = run;
  const { reqId } = await deliverUnbillable(t, run);
  const [held] = view.reservations();
  const code = await gw.stop('SIGTERM');
  t.not(code, 0, `SIGTERM exits non-zero (${code})`);
  const line = gw.logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('shutdown: settles left unwritten'));
  t.ok(line, 'one error line lists what is left');
  const left = (line?.unsettled ?? []) as { reservation: string; requestId: string; org: string; chargeUnits: number; chargeUsd: number }[];
  t.equal(left.length, 1);
  t.match(left[0], { reservation: held?.id, requestId: reqId, org: 'acme' }, 'the reservation, its request and organization');
  t.ok((left[0]?.chargeUnits ?? 0) > 0, 'and the charge it was due');
  t.equal(gw.logs.find((l) => l.msg === 'stopped')?.exitCode, 1);

  // the next start (store writable again) releases the hold the shutdown could not end
  rmSync(run.fault);
  view.close();
  const again = await startGateway(store.config);
  t.teardown(() => again.stop('SIGKILL'));
  const released = await eventually(async () => again.logs.find((l) => l.msg === 'released reservations left by a previous process'));
  t.match(released, { released: 1 }, 'the next start releases the hold');
  const view2 = new LedgerView(store.db);
  t.teardown(() => view2.close());
  t.same(view2.reservations(), [], 'no hold left after the next start');
  t.equal(await again.stop('SIGTERM'), 0);
});

t.test('a full store: 503 (never 500) while it is full, an exact ledger once it has room', async (t) => {
  const run = await start(t);
  const { gw, view } = run;
  writeFileSync(run.fault, 'full');
  const statuses: number[] = [];
  const served: string[] = [];
  // each settle adds a usage row: within a few pages' worth of rows one needs a new page and fails
  for (let i = 0; i < 200 && !statuses.includes(503); i++) {
    const res = await quick(gw);
    statuses.push(res.status);
    if (res.status === 200) served.push(localRequestId(res.headers) ?? '');
    else t.ok(res.headers.get('retry-after'), `a ${res.status} carries retry-after`);
    await res.arrayBuffer();
  }
  t.ok(statuses.includes(503), `the full store answers 503 (${statuses.length} requests)`);
  t.same(statuses.filter((s) => s !== 200 && s !== 503), [], 'nothing but 200 and 503');

  rmSync(run.fault);
  t.ok(await eventually(async () => view.reservations().length === 0, 10_000), 'every hold ended once the store has room');
  const rows = new Map(view.usage('acme').map((r) => [r.request_id, r]));
  for (const id of served) t.ok(rows.get(id), `the answer ${id} is billed`);
  const spent = [...rows.values()].reduce((s, r) => s + r.cost, 0);
  for (const r of rows.values()) t.equal(r.cost, expectedCost(BILL_PRICING, rowUsage(r)));
  t.match(view.org('acme'), { spent, reserved: 0 }, 'charged exactly the recorded usage');
  t.equal(await gw.stop('SIGTERM'), 0);
});
