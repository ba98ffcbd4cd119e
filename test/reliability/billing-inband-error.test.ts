// A stream that ends in the provider's in-band `error` event (after HTTP 200 and some text) through
// bin/gateway, on every endpoint × upstream protocol: the client gets its dialect's error frame, the
// usage record and the `request` log line carry the error code and the status the client saw (200),
// and the charge follows the spec's rule for a failed request: nothing on Chat Completions and
// Responses, the validated usage so far on Messages. No hold is left behind.
import t, { type Test } from 'tap';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { eventually, parseSse } from '../helpers/messages.js';
import { BILL_PRICING, chatHeaders, expectedCost, fileStoreConfig, headersFor, LedgerView, localRequestId, rowUsage, TEST_KEY } from '../helpers/billing.js';

type Endpoint = 'messages' | 'chat' | 'responses';
type Upstream = 'anthropic' | 'chat' | 'responses';

// frames a few ms apart: the text reaches the client before the error does
const FAULT = 'fault:error-mid;delay=5';
const UPSTREAMS: Record<Upstream, Record<string, unknown>> = {
  anthropic: { provider: 'sim-anthropic', model: FAULT },
  chat: { provider: 'sim-openai', model: FAULT, api: 'chat' },
  responses: { provider: 'sim-openai', model: FAULT, api: 'responses' },
};
const modelId = (up: Upstream): string => `bill/error-mid-${up}`;
const MODELS = (Object.keys(UPSTREAMS) as Upstream[]).map((up) => ({
  id: modelId(up),
  family: up === 'anthropic' ? 'anthropic' : 'openai',
  deployments: [UPSTREAMS[up]],
  pricing: { ...BILL_PRICING },
  input: ['text'],
  contextWindow: 200000,
  maxOutputTokens: 32000,
}));

const store = fileStoreConfig(MODELS);
let gw: RunningGateway;
let view: LedgerView;
t.before(async () => {
  gw = await startGateway(store.config);
  view = new LedgerView(store.db);
});
t.teardown(async () => {
  view?.close();
  await gw?.stop();
});

function request(endpoint: Endpoint, model: string): { path: string; headers: Record<string, string>; body: unknown } {
  const text = 'Tell me something long';
  if (endpoint === 'messages') return { path: '/v1/messages', headers: headersFor(TEST_KEY), body: { model, max_tokens: 256, stream: true, messages: [{ role: 'user', content: text }] } };
  if (endpoint === 'chat') return { path: '/v1/chat/completions', headers: chatHeaders(TEST_KEY), body: { model, stream: true, messages: [{ role: 'user', content: text }] } };
  return { path: '/v1/responses', headers: chatHeaders(TEST_KEY), body: { model, stream: true, input: text } };
}

/** The client saw text, then its dialect's terminal error frame. */
function checkErrorFrame(t: Test, endpoint: Endpoint, body: string): void {
  const frames = parseSse(body);
  if (endpoint === 'messages') {
    t.equal(frames.at(-1)?.event, 'error', `ends with an error event: ${body.slice(-300)}`);
    t.ok(frames.some((f) => f.event === 'content_block_delta'), 'some text came first');
  } else if (endpoint === 'chat') {
    t.equal(frames.at(-1)?.data, '[DONE]');
    const last = JSON.parse(frames.at(-2)?.data ?? '{}') as { choices?: { finish_reason?: string }[]; error?: unknown };
    t.equal(last.choices?.[0]?.finish_reason, 'error', `an error chunk: ${body.slice(-300)}`);
    t.ok(last.error, 'with its error');
  } else {
    t.equal(frames.at(-1)?.event, 'response.failed', `ends with response.failed: ${body.slice(-300)}`);
    // the cost a Responses answer reports is the amount charged: nothing for a failed one
    t.equal((JSON.parse(frames.at(-1)?.data ?? '{}') as { response?: { gateway?: { cost?: number } } }).response?.gateway?.cost, 0, 'reports cost 0');
  }
}

for (const endpoint of ['messages', 'chat', 'responses'] as Endpoint[]) {
  for (const up of Object.keys(UPSTREAMS) as Upstream[]) {
    t.test(`${endpoint} endpoint, ${up} upstream: an in-band error is a failure`, async (t) => {
      const before = view.org('acme');
      const from = gw.logs.length;
      const r = request(endpoint, modelId(up));
      const res = await fetch(`${gw.url}${r.path}`, { method: 'POST', headers: r.headers, body: JSON.stringify(r.body) });
      const body = await res.text();
      t.equal(res.status, 200, 'the stream had started');
      checkErrorFrame(t, endpoint, body);
      const reqId = localRequestId(res.headers);

      const row = await view.row('acme', reqId);
      t.ok(row, 'a usage record');
      if (!row) return;
      t.equal(row.status, 200, 'the status the client saw');
      t.match(row.error_code, /^GW_ERR_UPSTREAM/, 'the provider error code is recorded');
      if (endpoint === 'messages') {
        t.equal(row.cost, expectedCost(BILL_PRICING, rowUsage(row)), 'Messages: the validated usage so far is charged');
        if (up === 'anthropic') t.ok(row.cost > 0, 'the input tokens message_start reported');
      } else {
        t.equal(row.cost, 0, `${endpoint}: a failed request is charged nothing`);
      }
      const after = view.org('acme');
      t.equal(after.spent - before.spent, row.cost, 'the organization is charged the recorded cost');
      t.equal(after.balance, before.balance - row.cost);
      t.equal(after.reserved, 0, 'no hold left');
      t.same(view.reservations(), [], 'no reservation left');

      const line = await eventually(async () => gw.logs.slice(from).find((l) => l.msg === 'request' && l.reqId === reqId));
      t.match(line, { status: 200, errorCode: row.error_code, costUsd: row.cost / 1e9 }, 'the request log line says it failed');
    });
  }
}
