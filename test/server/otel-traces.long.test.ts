// OpenTelemetry traces through bin/gateway, received by a real OTLP/HTTP receiver (a node:http
// server here that decodes what the exporter sends): one SERVER span per request named after it,
// with the endpoint, models, provider, status, tokens, cost and request id, and a child span per
// stage inside it (prepare, reserve, the upstream call with its first-content event, settle); never
// a key or prompt text. Configured by the `otel` block, or by OTEL_EXPORTER_OTLP_ENDPOINT alone;
// without either, no OpenTelemetry module is loaded.
import { createRequire } from 'node:module';
import t, { type Test } from 'tap';
import { baseConfig, messagesHeaders, startGateway, TEST_KEY } from '../helpers/gateway.js';
import { localRequestId } from '../helpers/billing.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { openTracer } from '../../lib/tracing/open-tracer.js';

const PROMPT = 'a prompt that must never reach a trace';
const SERVER = 2;
const CLIENT = 3;

interface Sent {
  name: string;
  path: string;
  stream: boolean;
  reqId: string;
  text: string;
}

async function send(url: string, path: string, stream: boolean): Promise<Sent> {
  const chat = path === '/v1/chat/completions';
  const body = chat
    ? { model: 'gpt-5', max_tokens: 64, stream, ...(stream ? { stream_options: { include_usage: true } } : {}), messages: [{ role: 'user', content: PROMPT }] }
    : { model: 'opus', max_tokens: 64, stream, messages: [{ role: 'user', content: PROMPT }] };
  const headers = chat ? { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}`, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } : messagesHeaders();
  const res = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text}`);
  return { name: `${chat ? 'chat' : 'messages'} ${stream ? 'stream' : 'json'}`, path, stream, reqId: localRequestId(res.headers)!, text };
}

async function spansOf(rx: OtlpReceiver, reqId: string): Promise<{ root: ReceivedSpan; children: ReceivedSpan[] }> {
  for (let i = 0; i < 200; i++) {
    const root = rx.spans.find((s) => s.attributes['gateway.request_id'] === reqId);
    if (root) {
      const children = rx.spans.filter((s) => s.parentSpanId === root.spanId);
      if (children.length >= 4) return { root, children };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no trace for ${reqId} (received ${rx.spans.length} spans)`);
}

function checkTrace(t: Test, sent: Sent, root: ReceivedSpan, children: ReceivedSpan[], provider: string, served: string): void {
  const chat = sent.path === '/v1/chat/completions';
  t.equal(root.name, `POST ${sent.path}`, `${sent.name}: the span is named after the request`);
  t.equal(root.kind, SERVER, `${sent.name}: a SERVER span`);
  t.match(root.attributes, {
    'gateway.request_id': sent.reqId,
    'gateway.endpoint': chat ? 'chat.completions' : 'messages',
    'http.request.method': 'POST',
    'http.response.status_code': 200,
    'gen_ai.request.model': chat ? 'gpt-5' : 'opus',
    'gen_ai.response.model': served,
    'gateway.provider': provider,
    'gateway.stream': sent.stream,
    'gateway.key_id': 'full',
    'gateway.org': 'acme',
  }, `${sent.name}: endpoint, models, provider, status, request id`);
  t.ok(Number(root.attributes['gen_ai.usage.input_tokens']) > 0 && Number(root.attributes['gen_ai.usage.output_tokens']) > 0, `${sent.name}: tokens`);
  const cost = Number(root.attributes['gateway.cost_usd']);
  t.ok(cost > 0, `${sent.name}: the cost charged`);
  if (chat) {
    const told = [...sent.text.matchAll(/"cost":\s*([0-9.eE+-]+)/g)].pop();
    t.equal(cost, Number(told?.[1]), `${sent.name}: the cost the client was told`);
  }
  t.equal(root.status.code, 0, `${sent.name}: status unset (not an error)`);
  const names = children.map((c) => c.name).sort();
  t.same(names, ['gateway.prepare', 'gateway.reserve', 'gateway.settle', `upstream ${provider}`].sort(), `${sent.name}: one child span per stage`);
  for (const c of children) {
    t.equal(c.traceId, root.traceId, `${sent.name}: ${c.name} in the request's trace`);
    t.ok(c.startMs >= root.startMs - 1 && c.endMs <= root.endMs + 1 && c.endMs >= c.startMs, `${sent.name}: ${c.name} within the request span (${c.startMs - root.startMs} → ${c.endMs - root.startMs} ms)`);
  }
  const by = (name: string): ReceivedSpan => children.find((c) => c.name === name)!;
  const upstream = by(`upstream ${provider}`);
  t.equal(upstream.kind, CLIENT, `${sent.name}: the upstream call is a CLIENT span`);
  t.ok(by('gateway.prepare').endMs <= by('gateway.reserve').endMs + 0.01, `${sent.name}: prepared, then reserved`);
  t.ok(by('gateway.reserve').endMs <= upstream.startMs + 1, `${sent.name}: reserved before the upstream call`);
  // settled once the answer was complete (its last frames wait for it), so after the call began
  t.ok(upstream.startMs <= by('gateway.settle').startMs, `${sent.name}: settled after the upstream call`);
  if (sent.stream) t.ok(upstream.events.some((e) => e.name === 'first_content' && e.ms >= upstream.startMs), `${sent.name}: the first-content instant`);
  t.ok(upstream.events.some((e) => e.name === 'response.headers'), `${sent.name}: the upstream's headers instant`);
}

t.test('the otel block: a span per request with its stage spans, exported over OTLP/HTTP', async (t) => {
  const rx = await startOtlpReceiver();
  t.teardown(() => rx.close());
  const gw = await startGateway(baseConfig({ otel: { endpoint: rx.url, serviceName: 'gw-under-test', headers: { 'x-collector-token': 'collector-secret' } } }), { env: { OTEL_BSP_SCHEDULE_DELAY: '100' } });
  t.teardown(() => gw.stop());
  t.ok(gw.logs.some((l) => l.msg === 'traces exported over OTLP/HTTP' && l.otel === rx.url), 'the start says where traces go');

  const sent = [
    await send(gw.url, '/v1/messages', false),
    await send(gw.url, '/v1/messages', true),
    await send(gw.url, '/v1/chat/completions', false),
    await send(gw.url, '/v1/chat/completions', true),
  ];
  for (const s of sent) {
    const { root, children } = await spansOf(rx, s.reqId);
    const chat = s.path === '/v1/chat/completions';
    checkTrace(t, s, root, children, chat ? 'sim-openai' : 'sim-anthropic', chat ? 'openai/gpt-5' : 'anthropic/claude-opus-5');
    t.equal(root.resource['service.name'], 'gw-under-test', `${s.name}: the configured service name`);
    // the caller's W3C trace context (sent with the Chat requests) makes the request span its child
    if (chat) t.match(root, { traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331' }, `${s.name}: joins the caller's trace`);
    else t.equal(root.parentSpanId, '', `${s.name}: a root span without a traceparent`);
  }
  t.ok(rx.headers.every((h) => h['x-collector-token'] === 'collector-secret'), 'the configured headers go with every export');
  const all = rx.bodies.join('\n');
  t.notOk(all.includes(TEST_KEY), 'no API key in any span');
  t.notOk(all.includes(PROMPT), 'no prompt text in any span');

  // a refused request is traced too (no chain ran): its status and error code; a health probe is not
  t.equal((await fetch(`${gw.url}/healthz`)).status, 200);
  const refused = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: messagesHeaders({ 'x-api-key': 'sk-wrong' }), body: '{}' });
  const reqId = localRequestId(refused.headers)!;
  let span: ReceivedSpan | undefined;
  for (let i = 0; i < 100 && span === undefined; i++) {
    span = rx.spans.find((s) => s.attributes['gateway.request_id'] === reqId);
    if (span === undefined) await new Promise((r) => setTimeout(r, 50));
  }
  t.match(span?.attributes, { 'http.response.status_code': 401, 'error.type': /^GW_ERR_/ }, 'a refused request: its status and error code');
  t.notOk(rx.spans.some((x) => x.attributes['url.path'] === '/healthz'), 'health probes are not traced');
});

t.test('OTEL_EXPORTER_OTLP_ENDPOINT alone turns traces on (with OTEL_SERVICE_NAME)', async (t) => {
  const rx = await startOtlpReceiver();
  t.teardown(() => rx.close());
  const gw = await startGateway(baseConfig(), { env: { OTEL_EXPORTER_OTLP_ENDPOINT: rx.base, OTEL_SERVICE_NAME: 'gw-from-env', OTEL_BSP_SCHEDULE_DELAY: '100' } });
  t.teardown(() => gw.stop());
  const s = await send(gw.url, '/v1/messages', true);
  const { root, children } = await spansOf(rx, s.reqId);
  checkTrace(t, s, root, children, 'sim-anthropic', 'anthropic/claude-opus-5');
  t.equal(root.resource['service.name'], 'gw-from-env', 'the service name from the environment');
});

t.test('spans still buffered are exported at SIGTERM', async (t) => {
  const rx = await startOtlpReceiver();
  t.teardown(() => rx.close());
  // a batch delay far beyond the test: only the shutdown flush can send the span
  const gw = await startGateway(baseConfig({ otel: { endpoint: rx.url } }), { env: { OTEL_BSP_SCHEDULE_DELAY: '600000' } });
  const s = await send(gw.url, '/v1/chat/completions', false);
  t.equal(rx.spans.length, 0, 'nothing exported yet');
  t.equal(await gw.stop('SIGTERM'), 0, 'a clean exit');
  const root = rx.spans.find((x) => x.attributes['gateway.request_id'] === s.reqId);
  t.ok(root, 'the request span was exported on the way out');
  t.equal(root?.resource['service.name'], 'model-gateway', 'the default service name');
});

t.test('not configured: no OpenTelemetry module is loaded', async (t) => {
  const loaded = (): string[] => Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@opentelemetry'));
  t.equal(await openTracer({}, {}), null, 'no otel block, no OTEL_* environment: no tracer');
  t.equal(await openTracer({ otel: { endpoint: 'http://127.0.0.1:9/v1/traces' } }, { OTEL_SDK_DISABLED: 'true' }), null, 'OTEL_SDK_DISABLED=true wins');
  t.same(loaded(), [], 'and nothing of OpenTelemetry was imported');
  const tracer = await openTracer({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces' });
  t.ok(tracer, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT turns it on');
  t.ok(loaded().length > 0, 'then OpenTelemetry is loaded (the check above can see it)');
  await tracer?.close();
});
