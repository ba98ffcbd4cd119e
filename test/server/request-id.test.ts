// The gateway's own request ids through bin/gateway: `req_` and 32 hex digits, the first 12 the
// time the request came in (ms), so that ids sort by time (they key the usage table, whose index
// then grows at its end: lib/ids.ts) and stay unique.
import t from 'tap';
import { baseConfig, startGateway, type RunningGateway } from '../helpers/gateway.js';
import { msg, post } from '../helpers/messages.js';
import { newRequestId } from '../../lib/ids.js';

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(baseConfig());
});
t.teardown(() => gw?.stop());

const LOCAL_ID = /^req_[0-9a-f]{32}$/;

t.test('each answer names an id that starts with the time it came in, so later ids sort later', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const before = Date.now();
    const res = await post(gw, msg('opus'));
    const after = Date.now();
    t.equal(res.status, 200);
    const id = res.headers.get('x-gateway-request-id') ?? '';
    t.match(id, LOCAL_ID);
    const at = parseInt(id.slice(4, 16), 16);
    t.ok(at >= before && at <= after, `the id's time ${at} is within the request's [${before}, ${after}]`);
    ids.push(id);
    await new Promise((r) => setTimeout(r, 2)); // the next one in a later millisecond
  }
  t.same([...ids].sort(), ids, 'in the order they were sent');
});

t.test('ids of one millisecond differ in their 80 random bits', async (t) => {
  const ids = Array.from({ length: 10_000 }, () => newRequestId());
  t.equal(new Set(ids).size, ids.length, 'no two alike');
  for (const id of ids.slice(0, 100)) t.match(id, LOCAL_ID);
  const tails = new Set(ids.map((id) => id.slice(16)));
  t.equal(tails.size, ids.length, 'the random part alone tells them apart');
});
