// dispatch: a routed request → an `upstream` note naming the deployment that answered, then the
// upstream's body bytes as they come. Against the simulated provider on 127.0.0.1 (port 0): the
// answer streams and decodes; a 529/429/5xx before the first byte moves on to the next deployment;
// another error answer is final and keeps the upstream's status and wording; every deployment failing
// is the error of the last one.
import t from 'tap';
import type { RoutedRequest } from '../../lib/chunks.js';
import type { Config } from '../../lib/config.js';
import type { RequestContext } from '../../lib/context.js';
import { offlineContext } from '../../lib/offline-context.js';
import type { Upstream } from '../../lib/notes.js';
import { ProviderPool } from '../../lib/providers/pool.js';
import { startSimProvider } from '../../lib/sim/server.js';
import { runStage } from '../../lib/stage.js';
import { dispatch } from '../../stages/dispatch.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { routeRequest } from '../../stages/route.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { makeServices, testConfig } from '../helpers/context.js';
import { clientContext, clientRequest, failed, run } from './harness.js';

const sim = await startSimProvider({ host: '127.0.0.1', port: 0 });
t.teardown(() => sim.close());

const model = (id: string, ...deployments: string[]) => ({ id, deployments: deployments.map((m) => ({ provider: 'sim', model: m })), pricing: { input: 1, output: 1 }, maxOutputTokens: 4096 });
const config: Config = testConfig({
  models: [model('m/ok', 'claude-opus-5'), model('m/failover', 'fault:529', 'fault:503', 'claude-fable-5'), model('m/final', 'fault:400', 'claude-opus-5'), model('m/busy', 'fault:529', 'fault:429')],
});
const services = { ...makeServices(config), providers: new ProviderPool(config, sim.url) };
t.teardown(() => services.providers.close());

function routed(ctx: RequestContext, modelId: string, stream = true): RoutedRequest {
  return routeRequest(clientRequest(ctx, { model: modelId, max_tokens: 64, stream, messages: [{ role: 'user', content: 'hello there' }] }), ctx);
}

async function call(modelId: string, stream = true) {
  sim.reset();
  const ctx = clientContext('anthropic', { config, services });
  const got = await run(dispatch()(ctx), [routed(ctx, modelId, stream)], ctx);
  const body = Buffer.concat(got.values as Buffer[]);
  return { ...got, body, upstream: got.notes.find((n) => n.note === 'upstream')?.upstream as Upstream | undefined, sent: sim.requests.map((r) => (r.body as { model?: string } | undefined)?.model) };
}

t.test('the first deployment answers: an upstream note, then the SSE bytes as they come', async (t) => {
  const got = await call('m/ok');
  t.equal(got.error, undefined);
  t.match(got.upstream, { id: 'sim', protocol: 'anthropic', api: 'messages', upstreamModel: 'claude-opus-5', stream: true });
  t.type(got.upstream?.timing.sentAt, 'number');
  t.ok(got.values.length >= 1 && got.values.every((v) => Buffer.isBuffer(v)), 'Buffers');
  t.same(got.sent, ['claude-opus-5'], 'one request, for the deployment model');
  // the bytes are the upstream's event stream: they decode
  const ctx = offlineContext();
  const events = await runStage(providerDecode({ dialect: () => 'anthropic' }), await runStage(sseDecode(), [got.body], ctx), ctx);
  t.match(events[0], { type: 'message-start', model: /claude-opus-5/ });
  t.match(events.at(-1), { type: 'message-stop' });
});

t.test('a non-streaming request: the upstream note says JSON, the body is one document', async (t) => {
  const got = await call('m/ok', false);
  t.match(got.upstream, { stream: false });
  t.match(JSON.parse(got.body.toString()), { type: 'message', role: 'assistant' });
});

t.test('529 and 503 before the first byte: the next deployment answers', async (t) => {
  const got = await call('m/failover');
  t.equal(got.error, undefined);
  t.same(got.sent, ['fault:529', 'fault:503', 'claude-fable-5'], 'each deployment tried in order');
  t.match(got.upstream, { upstreamModel: 'claude-fable-5' }, 'the note names the one that answered');
  t.equal(got.notes.filter((n) => n.note === 'upstream').length, 1, 'and only it');
});

t.test('a 400 is final: not retried, the upstream status and wording kept', async (t) => {
  const got = await call('m/final');
  t.same(got.sent, ['fault:400'], 'the second deployment is never tried');
  t.match(failed(got), { status: 400, message: /sim fault 400: this request is invalid and must not be retried/, upstream: { status: 400 } });
  t.equal(got.upstream, undefined, 'no upstream note: nothing answered');
});

t.test('every deployment busy: the last one’s error, with its retry-after', async (t) => {
  const got = await call('m/busy');
  t.same(got.sent, ['fault:529', 'fault:429']);
  t.match(failed(got), { code: 'GW_ERR_UPSTREAM_RATE_LIMITED', status: 429, headers: { 'retry-after': '1' } });
});

t.test('a model with no deployment the request can be sent to: GW_ERR_PROVIDER_UNAVAILABLE, nothing sent', async (t) => {
  sim.reset();
  const ctx = clientContext('anthropic', { config, services });
  const r = routed(ctx, 'm/ok');
  const none = { ...r, deployments: [] };
  t.match(failed(await run(dispatch()(ctx), [none], ctx)), { code: 'GW_ERR_PROVIDER_UNAVAILABLE' });
  t.same(sim.requests, []);
});
