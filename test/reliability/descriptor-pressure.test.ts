// Descriptor pressure through real TCP against bin/gateway (issue #18, the reliability tier): many
// connections held open by clients that never finish their request head, that trickle the body of
// an accepted request, or that trickle the body of a refused (401) one. While they are held a normal
// request is still served; then the gateway closes every one of them by its own timeouts
// (`connections.headersTimeoutMs`, `bodyGraceMs` + `bodyMinBytesPerSecond`, `refusedBodyDrainMs`,
// set low here) and its descriptors come back near where they were. Before those timeouts 1,100
// such connections starved the gateway. It prints the figures; it asserts no timings beyond a
// generous bound. Quick: 300 connections; GATEWAY_RELIABILITY_FULL=1: 900.
import t from 'tap';
import { baseConfig, messagesHeaders, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { descriptorFigures, eventually, openDescriptors, sampler } from './process-figures.js';
import { RawConnection, within } from './raw-connection.js';

const FULL = process.env.GATEWAY_RELIABILITY_FULL === '1';
const PER_KIND = FULL ? 300 : 100;
const connections = { headersTimeoutMs: 1000, bodyGraceMs: 1000, bodyMinBytesPerSecond: 1000, refusedBodyDrainMs: 500 };
/** a client writes a piece this often: a few bytes a second, far under the minimum rate */
const TRICKLE_MS = 200;
/** generous: every configured time is a second or two; before the fix these never closed */
const BOUND_MS = 20000;
const FD_MARGIN = 10;

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(baseConfig({ connections }));
});
t.teardown(() => gw?.stop());

type Kind = 'slow head' | 'slow body' | 'refused slow body';
const KINDS: readonly Kind[] = ['slow head', 'slow body', 'refused slow body'];

function hold(kind: Kind): { conn: RawConnection; stop: () => void } {
  const conn = new RawConnection(gw.url);
  const host = `host: ${new URL(gw.url).host}`;
  const headers = Object.entries(messagesHeaders(kind === 'refused slow body' ? { 'x-api-key': 'sk-wrong-key-000' } : {})).map(([k, v]) => `${k}: ${v}`);
  if (kind === 'slow head') {
    conn.write(`POST /v1/messages HTTP/1.1\r\n${host}\r\n`);
    return { conn, stop: conn.trickle('x-slow: 1\r\n', TRICKLE_MS) };
  }
  conn.head(['POST /v1/messages HTTP/1.1', host, ...headers, 'content-length: 100000']);
  return { conn, stop: conn.trickle(kind === 'slow body' ? ' ' : '{', TRICKLE_MS) };
}

async function normalRequest(): Promise<number> {
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: messagesHeaders(),
    body: JSON.stringify({ model: 'claude-opus-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.text();
  return res.status;
}

t.test(`${PER_KIND * KINDS.length} connections that never finish: a normal request is served, the gateway closes them all`, async (t) => {
  const pid = gw.proc.pid!;
  t.equal(await normalRequest(), 200, 'a warm-up request');
  const idle = descriptorFigures(gw);
  const fds = sampler(() => openDescriptors(pid));

  const held = KINDS.flatMap((kind) => Array.from({ length: PER_KIND }, () => ({ kind, ...hold(kind) })));
  const total = held.length;
  // all of them reached the gateway (most of them still open when the normal request goes)
  let open = 0;
  await eventually(() => (open = descriptorFigures(gw).clients - idle.clients) >= total * 0.9, 5000, 20);
  const sent = Date.now();
  const status = await normalRequest();
  const servedMs = Date.now() - sent;
  t.equal(status, 200, `a normal request is served while ${open} connections are held`);

  const allClosed = await within(Promise.all(held.map((h) => h.conn.closed)), BOUND_MS);
  const closedMs = Date.now() - sent;
  for (const h of held) h.stop();
  t.ok(allClosed, 'the gateway closed every held connection by its own timeouts (the clients never hung up)');
  for (const kind of KINDS) {
    const left = held.filter((h) => h.kind === kind && !h.conn.isClosed).length;
    t.equal(left, 0, `no ${kind} connection left open`);
  }

  let after = descriptorFigures(gw);
  const back = await eventually(() => {
    after = descriptorFigures(gw);
    return after.clients <= idle.clients && after.fds <= idle.fds + FD_MARGIN;
  }, 10000, 250);
  const peakFds = fds.stop();
  t.ok(back, `the gateway's descriptors came back near the idle count (idle ${JSON.stringify(idle)}, after ${JSON.stringify(after)})`);
  t.equal(await normalRequest(), 200, 'and it serves as before');
  held.forEach((h) => h.conn.destroy());

  t.comment(
    `descriptor pressure: ${total} connections held (${PER_KIND} slow heads, ${PER_KIND} slow bodies, ${PER_KIND} refused slow bodies), ` +
      `${open} open at the gateway at once; a normal request served in ${servedMs} ms meanwhile; all closed by the gateway within ${closedMs} ms; ` +
      `descriptors idle ${idle.fds + idle.pool * 2}, peak ${peakFds}, after ${after.fds + after.pool * 2}`,
  );
});
