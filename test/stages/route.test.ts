// route: a validated request → the routed request, output twice: first as a `routed` note (for the
// encoder and settle after dispatch), then as the value dispatch takes. What a caller sees: the model
// resolved (or picked by gateway-auto), max_tokens capped to the model's maximum, a thinking budget
// reconciled, and each refusal with its code and the `model` (or budget) path.
import t from 'tap';
import type { CanonicalRequest, RoutedRequest } from '../../lib/chunks.js';
import { route } from '../../stages/route.js';
import { makeContext, makeRouted, makeServices, testConfig } from '../helpers/context.js';
import { failed, run } from './harness.js';

const OPUS = 'anthropic/claude-opus-5';
const FABLE = 'anthropic/claude-fable-5';

function request(model: string | null, over: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { ...makeRouted(OPUS, { model }).request, ...over };
}

async function routeOne(req: CanonicalRequest, ctx = makeContext()) {
  return run(route()(ctx), [req], ctx);
}

t.test('a catalog id: a routed note, then the same routed request as the value', async (t) => {
  const req = request(OPUS, { maxTokens: 1000 });
  const got = await routeOne(req);
  t.equal(got.values.length, 1);
  const routed = got.values[0] as RoutedRequest;
  t.match(routed, { request: req, modelId: OPUS, routed: false, routingLatencyMs: null, maxTokens: 1000, maxTokensCappedTo: null, modelMaxOutputTokens: 64000 });
  t.same(routed.deployments.map((d) => [d.providerId, d.upstreamModel]), [['sim', 'claude-opus-5']]);
  t.same(got.notes, [{ note: 'routed', routed }], 'the note carries the very routed request');

  const ctx = makeContext();
  const out = route()(ctx).step(req, ctx) as unknown[];
  t.match(out, [{ note: 'routed' }, { modelId: OPUS }], 'the note goes first');
});

t.test('max_tokens over the model maximum is capped and the cap reported', async (t) => {
  const routed = (await routeOne(request(FABLE, { maxTokens: 10_000 }))).values[0] as RoutedRequest;
  t.match(routed, { modelId: FABLE, maxTokens: 8192, maxTokensCappedTo: 8192 });
});

t.test('a thinking budget at or over max_tokens shrinks to fit, or is refused when no room is left', async (t) => {
  const fits = (await routeOne(request(OPUS, { maxTokens: 4000, thinkingBudget: 5000 }))).values[0] as RoutedRequest;
  t.equal(fits.thinkingBudget, 3999);
  const err = failed(await routeOne(request(OPUS, { maxTokens: 1000, thinkingBudget: 2000 })));
  t.match(err, { code: 'GW_ERR_REQUEST_INVALID', status: 400, param: 'thinking.budget_tokens', message: /allows at most 1000 output tokens/ });
});

t.test('refusals name the model field', async (t) => {
  const unknown = failed(await routeOne(request('anthropic/claude-opus-6')));
  t.match(unknown, { code: 'GW_ERR_MODEL_UNKNOWN', status: 400, param: 'model', message: /unknown model "anthropic\/claude-opus-6"\. Close matches: anthropic\/claude-opus-5,/ });

  const image = request(OPUS);
  image.needs = { ...image.needs, modalities: new Set(['text', 'image']) };
  t.match(failed(await routeOne(image)), { code: 'GW_ERR_MODALITY_UNSUPPORTED', param: 'model', message: /does not accept image input/ });

  const config = testConfig({ keys: [{ id: 'key_narrow', key: 'sk-test-narrow-0009', org: 'acme', models: [FABLE] }] });
  const narrow = makeContext({ config, services: makeServices(config), key: 'sk-test-narrow-0009' });
  t.match(failed(await routeOne(request(OPUS), narrow)), { code: 'GW_ERR_MODEL_NOT_ALLOWED', status: 403, param: 'model', message: /may not use model "anthropic\/claude-opus-5"/ });
  t.match((await routeOne(request(FABLE), narrow)).values[0], { modelId: FABLE }, 'the allowed model routes');
});

t.test("gateway-auto picks the router's choice among the candidates meeting the hard needs, and says so", async (t) => {
  const auto = (await routeOne(request('gateway-auto'))).values[0] as RoutedRequest;
  t.match(auto, { modelId: OPUS, routed: true });
  t.match(auto.routing, { reason: 'router', choice: OPUS, target: 0.95, eligible: 2 }, 'fable, far weaker by its default profile, is not within target');
  t.type(auto.routingLatencyMs, 'number');
  const nullModel = (await routeOne(request(null))).values[0] as RoutedRequest;
  t.equal(nullModel.modelId, OPUS, 'no model at all is gateway-auto too');

  const big = request('gateway-auto', { inputTokenBound: 10_000_000 });
  t.match(failed(await routeOne(big)), { code: 'GW_ERR_MODEL_UNKNOWN', param: 'model', message: /no model available to "gateway-auto" meets this request's needs \(a context window of 10000000 tokens\)/ });
});
