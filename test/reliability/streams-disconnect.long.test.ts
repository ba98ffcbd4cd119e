// Many concurrent slow Messages streams, 30 % of whose clients disconnect mid-stream at seeded random
// points, through the real bin/gateway on a file store (issue #18, the reliability tier): afterwards
// every stream either completed whole or was cut by its own client, no reservation is left open,
// each request has exactly one usage record, the organisation's spent total is the sum of the
// records (a completed stream costing something), and the gateway's open descriptors are back near
// where they were before the load. It prints the figures (streams held at once, peak resident
// memory, memory per open stream); it asserts no timings. Quick: 200 streams;
// GATEWAY_RELIABILITY_FULL=1: 1,000. GATEWAY_STREAMS_SEED picks another seed.
import { Agent, request } from 'node:http';
import t from 'tap';
import { billModel, fileStoreConfig, headersFor, LedgerView, localRequestId, TEST_KEY } from '../helpers/billing.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { prng } from './mutate.js';
import { descriptorFigures, eventually, mb, openDescriptors, sampler, statusBytes } from './process-figures.js';

const FULL = process.env.GATEWAY_RELIABILITY_FULL === '1';
const N = FULL ? 1000 : 200;
const SEED = Number(process.env.GATEWAY_STREAMS_SEED ?? 18);
const CUT_SHARE = 0.3;
const DELTAS = 40;
/**
 * 40 deltas 50 ms apart (150 with 1,000 streams, which take longer to open): each stream lasts two
 * (six) seconds, so nearly all of them are open together
 */
const MODEL = billModel('bill/slow-stream', `claude-bill;delay=${FULL ? 150 : 50};deltas=${DELTAS}`);
/** descriptors the gateway may keep beyond its idle count, the upstream pool apart (store, log, timers) */
const FD_MARGIN = 10;

interface Outcome {
  requestId: string | null;
  status: number;
  /** the client hung up after `cutAfter` deltas */
  cut: boolean;
  completed: boolean;
  deltas: number;
  error?: string;
}

// one connection a stream, closed after it (Node 20's global agent keeps connections alive)
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
let held = 0;
let heldPeak = 0;

/** one stream; with `cutAfter` the client destroys its request after that many text deltas */
function stream(url: string, cutAfter: number | undefined): Promise<Outcome> {
  const body = JSON.stringify({ model: MODEL.id, max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'stream this slowly please' }] });
  return new Promise((resolve) => {
    const out: Outcome = { requestId: null, status: 0, cut: false, completed: false, deltas: 0 };
    const req = request(`${url}/v1/messages`, { method: 'POST', agent, headers: headersFor(TEST_KEY) }, (res) => {
      out.status = res.statusCode ?? 0;
      out.requestId = localRequestId(new Headers(res.headers as Record<string, string>));
      heldPeak = Math.max(heldPeak, ++held);
      let text = '';
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        held--;
        resolve(out);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        out.deltas = text.split('event: content_block_delta').length - 1;
        if (cutAfter !== undefined && out.deltas >= cutAfter && !out.cut) {
          out.cut = true;
          req.destroy();
          end();
        }
      });
      res.on('end', () => {
        out.completed = !out.cut && text.includes('event: message_stop') && !text.includes('event: error');
        end();
      });
      res.on('error', (err) => {
        if (!out.cut) out.error = err.message;
        end();
      });
    });
    req.on('error', (err) => {
      if (out.cut) return;
      out.error = err.message;
      resolve(out);
    });
    req.end(body);
  });
}

let gw: RunningGateway;
let view: LedgerView;
t.before(async () => {
  const store = fileStoreConfig([MODEL], { orgs: [{ id: 'acme', credits: 100000, projects: [{ id: 'web', environments: [{ id: 'production' }] }] }] });
  gw = await startGateway(store.config);
  view = new LedgerView(store.db);
});
t.teardown(async () => {
  agent.destroy();
  view?.close();
  await gw?.stop();
});

t.test(`${N} concurrent streams, ${CUT_SHARE * 100} % cut by their clients: whole or cut, exact ledger, descriptors back`, async (t) => {
  const pid = gw.proc.pid!;
  // one stream first, so the idle figures include what the first request loads (the store, the pools)
  const warm = await stream(gw.url, undefined);
  t.ok(warm.completed, 'a warm-up stream completes');
  await eventually(() => view.reservations().length === 0, 5000);
  const idle = descriptorFigures(gw);
  const idleRss = statusBytes(pid, 'VmRSS');

  const rand = prng(SEED);
  const cuts = Array.from({ length: N }, () => (rand() < CUT_SHARE ? 1 + Math.floor(rand() * (DELTAS - 1)) : undefined));
  const rss = sampler(() => statusBytes(pid, 'VmRSS'));
  const fds = sampler(() => openDescriptors(pid));
  const outcomes = await Promise.all(cuts.map((cut) => stream(gw.url, cut)));
  const peakRss = rss.stop();
  const peakFds = fds.stop();

  const notWhole = outcomes.filter((o) => o.status !== 200 || (!o.cut && (!o.completed || o.deltas !== warm.deltas)));
  t.same(notWhole, [], 'every stream completed whole (all its deltas and message_stop) or was cut by its client');
  const cutCount = outcomes.filter((o) => o.cut).length;
  t.equal(cutCount, cuts.filter((c) => c !== undefined).length, 'every client that meant to hang up did, mid-stream');

  // the ledger: settle runs as each request closes, so wait for the last holds to end
  t.ok(await eventually(() => view.reservations().length === 0, 15000), 'no reservation left open');
  const ids = new Set(outcomes.map((o) => o.requestId).concat(warm.requestId));
  t.equal(ids.size, N + 1, 'every answer had its own request id');
  t.ok(await eventually(() => view.usage('acme').length >= N + 1, 10000), 'the usage records arrived');
  const rows = view.usage('acme');
  t.equal(rows.length, N + 1, 'one usage record per request');
  t.same(rows.filter((r) => !ids.has(r.request_id)), [], 'each record belongs to one of these requests');
  t.equal(new Set(rows.map((r) => r.request_id)).size, rows.length, 'no request recorded twice');
  const byId = new Map(rows.map((r) => [r.request_id, r]));
  const completedFree = outcomes.filter((o) => o.completed && !(byId.get(o.requestId!)!.cost > 0));
  t.same(completedFree, [], 'a completed stream costs something');
  t.ok(rows.every((r) => r.cost >= 0), 'no record costs less than nothing');
  const org = view.org('acme');
  t.equal(org.reserved, 0, 'nothing reserved');
  t.equal(org.spent, rows.reduce((sum, r) => sum + r.cost, 0), "the org's spent total is the sum of its records");

  // descriptors: every client connection closes, and so does everything else a stream opened but
  // the pool of idle upstream connections (to the in-process simulated provider: both ends are the
  // gateway's), which undici keeps for reuse for about a minute (the next streams reuse it)
  let after = descriptorFigures(gw);
  const back = await eventually(() => {
    after = descriptorFigures(gw);
    return after.clients <= idle.clients && after.fds <= idle.fds + FD_MARGIN;
  }, 20000, 250);
  t.ok(back, `client connections all closed (but a warm-up's keep-alive one) and the other descriptors back near the idle count (idle ${JSON.stringify(idle)}, after ${JSON.stringify(after)})`);
  t.ok(after.pool <= N + 1, `the idle upstream pool (${after.pool}) is no larger than the upstream calls made`);

  const hwm = statusBytes(pid, 'VmHWM');
  const peak = Math.max(peakRss, hwm);
  t.comment(
    `streams: ${N} (${cutCount} cut by their clients), held at once ${heldPeak}; ` +
      `gateway RSS idle ${mb(idleRss)} MB, peak ${mb(peak)} MB (VmHWM ${mb(hwm)} MB), ` +
      `${((peak - idleRss) / N / 1024).toFixed(1)} kB per open stream; descriptors idle ${idle.fds + idle.pool * 2}, peak ${peakFds}, after ${after.fds} + upstream pool ${after.pool}`,
  );
});
