// Upstream failures on POST /v1/messages through bin/gateway: failover before the first byte,
// canonical upstream errors when every deployment fails, provider 400s kept, in-stream `error`
// frames after HTTP 200, fail-closed JSON errors, and a client that goes away mid-stream.
import t from 'tap';
import { baseConfig, startGateway, withModels, type RunningGateway } from '../helpers/gateway.js';
import { credits, dataOf, eventually, events, expectError, fileStoreConfig, msg, parseSse, post, upstreamCalls } from '../helpers/messages.js';

const PRICING = { input: 5, output: 25 };
const model = (id: string, deployments: [string, string][]): Record<string, unknown> => ({
  id,
  family: 'anthropic',
  deployments: deployments.map(([provider, m]) => ({ provider, model: m })),
  pricing: PRICING,
  maxOutputTokens: 64000,
});
const SIM = 'sim-anthropic';
const QUICK = 'sim-quick';
const GOOD: [string, string] = [SIM, 'claude-opus-5'];

const FAILOVER = ['429', '500', '529', 'reset-before'];
const MIDSTREAM = ['reset-mid', 'stall-mid', 'malformed-sse', 'bad-index', 'non-finite', 'no-stop', 'unclosed-block'];
/** faults already visible in the first frame: nothing went to the client yet */
const FIRST_FRAME = ['wrong-model', 'duplicate-keys'];

const base = baseConfig();
const { config, file } = fileStoreConfig(
  withModels({ ...base, providers: [...(base.providers as Record<string, unknown>[]), { id: QUICK, protocol: 'anthropic', simulated: true, timeoutMs: 300, idleTimeoutMs: 300 }] }, [
    ...FAILOVER.map((k) => model(`test/failover-${k}`, [[SIM, `fault:${k}`], GOOD])),
    model('test/failover-slow', [[QUICK, 'fault:slow;ms=3000'], GOOD]),
    model('test/all-429', [[SIM, 'fault:429;retry-after=7'], [SIM, 'fault:429;retry-after=7']]),
    model('test/all-529', [[SIM, 'fault:529'], [SIM, 'fault:529']]),
    model('test/all-500', [[SIM, 'fault:500'], [SIM, 'fault:503']]),
    model('test/all-slow', [[QUICK, 'fault:slow;ms=3000']]),
    model('test/bad-400', [[SIM, 'fault:400'], GOOD]),
    model('test/bad-401', [[SIM, 'fault:401'], GOOD]),
    // frames a few ms apart: each reaches the gateway on its own, so the failing one comes after the
    // first bytes went to the client (frames that arrive together are answered as one write)
    ...MIDSTREAM.map((k) => model(`test/${k}`, [[QUICK, `fault:${k};delay=5`], GOOD])),
    ...FIRST_FRAME.map((k) => model(`test/${k}`, [[QUICK, `fault:${k}`], GOOD])),
    model('test/long', [[SIM, 'claude-long;delay=100;deltas=30']]),
  ]),
);

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(config);
});
t.teardown(() => gw?.stop());

const upstreamModels = async (): Promise<unknown[]> => (await upstreamCalls(gw)).map((c) => c.body.model);

t.test('failover before the first byte reaches the next deployment', async (t) => {
  for (const kind of [...FAILOVER, 'slow']) {
    // a timeout costs real time: one variant is enough for it
    for (const stream of kind === 'slow' ? [true] : [false, true]) {
      await gw.clearSim();
      const r = await post(gw, msg(`test/failover-${kind}`, { stream }));
      t.equal(r.status, 200, `${kind} stream=${stream}: ${r.text.slice(0, 200)}`);
      if (stream) {
        const frames = parseSse(r.text);
        t.equal(frames[0]?.event, 'message_start');
        t.equal(frames.at(-1)?.event, 'message_stop', `${kind}: a complete stream`);
      } else t.match(JSON.parse(r.text), { type: 'message', model: `test/failover-${kind}`, stop_reason: 'end_turn' });
      t.same((await upstreamModels()).at(-1), 'claude-opus-5', `${kind}: served by the second deployment`);
      t.equal((await upstreamCalls(gw)).length, 2, `${kind}: two upstream calls`);
    }
  }
});

t.test('every deployment failed: the canonical upstream error', async (t) => {
  await gw.clearSim();
  const limited = await post(gw, msg('test/all-429'));
  expectError(t, limited, 429, 'rate_limit_error', "This request would exceed your account's rate limit");
  t.equal(limited.headers.get('retry-after'), '7', 'the provider retry-after');
  t.equal((await upstreamCalls(gw)).length, 2, 'both deployments tried');

  const overloaded = await post(gw, msg('test/all-529', { stream: true }));
  expectError(t, overloaded, 529, 'overloaded_error', 'Overloaded');
  t.ok(overloaded.headers.get('retry-after'), 'retry-after on 529');

  const down = await post(gw, msg('test/all-500'));
  expectError(t, down, 503, 'api_error', 'Service unavailable');

  const slow = await post(gw, msg('test/all-slow'));
  expectError(t, slow, 504, 'timeout_error');
});

t.test('a provider 400 is not retried, and its wording is kept', async (t) => {
  await gw.clearSim();
  const r = await post(gw, msg('test/bad-400'));
  expectError(t, r, 400, 'invalid_request_error', 'sim fault 400: this request is invalid and must not be retried');
  t.same(await upstreamModels(), ['fault:400'], 'no failover');
  t.equal(r.headers.get('x-should-retry'), 'false');
  await gw.clearSim();
  const auth = await post(gw, msg('test/bad-401'));
  const body = expectError(t, auth, 502, 'api_error', 'credentials');
  t.notMatch(body.error.message, /invalid x-api-key/, "the provider's auth complaint is not the client's");
  t.same(await upstreamModels(), ['fault:401']);
});

t.test('mid-stream failures after HTTP 200 end with event: error and no message_stop', async (t) => {
  for (const kind of MIDSTREAM) {
    await gw.clearSim();
    const r = await post(gw, msg(`test/${kind}`, { stream: true }));
    t.equal(r.status, 200, `${kind}: the stream had begun`);
    const frames = parseSse(r.text);
    t.equal(frames[0]?.event, 'message_start', `${kind}: began`);
    t.equal(frames.at(-1)?.event, 'error', `${kind}: ends with error (${events(frames).join(',')})`);
    t.notOk(events(frames).includes('message_stop'), `${kind}: no message_stop`);
    const err = dataOf(frames.at(-1));
    t.same(Object.keys(err).sort(), ['error', 'request_id', 'type']);
    t.equal(err.type, 'error');
    t.equal(err.error.type, kind === 'stall-mid' ? 'timeout_error' : 'api_error', `${kind}: error type`);
    t.equal(err.request_id, r.headers.get('request-id'), `${kind}: request_id is the request-id header`);
    t.equal((await upstreamCalls(gw)).length, 1, `${kind}: no failover after the first byte`);
  }
});

t.test('faults in the first frame: nothing was sent yet, so a JSON error', async (t) => {
  for (const stream of [true, false]) {
    await gw.clearSim();
    expectError(t, await post(gw, msg('test/wrong-model', { stream })), 502, 'api_error', 'integrity');
    t.equal((await upstreamCalls(gw)).length, 1, 'wrong-model: an integrity failure is not failed over');
  }
});

// Nothing of these answers reached the client (a first frame the decoder rejects, a JSON body cut,
// unreadable or silent), so the next deployment answers (this pinned a 502/504 before issue #18).
t.test('a first frame or a JSON body that cannot be read is failed over', async (t) => {
  const cases: [string, boolean][] = [['duplicate-keys', true], ['duplicate-keys', false], ...['reset-mid', 'malformed-sse', 'non-finite', 'no-stop', 'stall-mid'].map((k): [string, boolean] => [k, false])];
  for (const [kind, stream] of cases) {
    await gw.clearSim();
    const r = await post(gw, msg(`test/${kind}`, { stream }));
    t.equal(r.status, 200, `${kind} stream=${stream}: ${r.text.slice(0, 200)}`);
    const first = FIRST_FRAME.includes(kind) ? `fault:${kind}` : `fault:${kind};delay=5`;
    t.same(await upstreamModels(), [first, 'claude-opus-5'], `${kind}: failed over`);
  }
});

t.test('a client that goes away mid-stream cancels the upstream call; usage so far is settled', async (t) => {
  await gw.clearSim();
  const controller = new AbortController();
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-test-full-0000' },
    body: JSON.stringify(msg('test/long', { stream: true })),
    signal: controller.signal,
  });
  t.equal(res.status, 200);
  const requestId = res.headers.get('request-id');
  const reader = res.body!.getReader();
  let seen = '';
  while (!seen.includes('content_block_delta')) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += Buffer.from(value).toString('utf8');
  }
  controller.abort();
  const aborted = await eventually(async () => (await upstreamCalls(gw)).find((c) => c.aborted));
  t.ok(aborted, 'the simulated provider saw the connection close before its answer was complete');
  const line = await eventually(async () => gw.logs.find((l) => l.msg === 'request' && l.reqId !== undefined && l.errorCode === 'GW_ERR_CLIENT_CLOSED'));
  t.ok(line, 'the gateway ended the request as closed by the client');
  const record = (await credits(file, 'usage', '--limit', '5')).find((u) => u.errorCode === 'GW_ERR_CLIENT_CLOSED');
  t.ok(record, 'a usage record for the abandoned request');
  t.match(record, { modelServed: 'test/long', inputTokens: Number, outputTokens: Number });
  t.ok((record?.costUnits as number) > 0, 'the usage incurred so far was charged');
  t.ok(requestId, 'request-id');
  // a usage record is written only when a reservation ends (settled or released): none is left held
});
