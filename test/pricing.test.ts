import t from 'tap';
import { Catalog, type CatalogModel } from '../lib/catalog.js';
import { emptyUsage, type Usage } from '../lib/chunks.js';
import {
  costForSeconds,
  costUnits,
  estimateUnits,
  formatUsd,
  parseUsd,
  priceOf,
  pricingFromConfig,
  tokenEstimate,
  totalCostUnits,
} from '../lib/pricing.js';
import { makeRouted, testConfig } from './helpers/context.js';

const catalog = new Catalog(testConfig());
const opus = catalog.get('anthropic/claude-opus-5')!;
const fable = catalog.get('anthropic/claude-fable-5')!;

function usage(u: Partial<Usage>): Usage {
  return { ...emptyUsage(), ...u };
}

t.test('prices are integer pico-dollars per token, computed once per model', async (t) => {
  const p = priceOf(opus);
  t.equal(p.input, 5_000_000n);
  t.equal(p.output, 25_000_000n);
  t.equal(p.cacheRead, 500_000n);
  t.equal(p.cacheWrite, 6_250_000n);
  t.equal(p.webSearch, 10_000_000_000n, 'default $0.01 per search');
  t.equal(p.inputBound, 6_250_000n, 'cache writes cost more than input here');
  t.equal(priceOf(opus), p, 'cached');
  // float traps: 0.1 * 1e6 and 0.3 * 1e6 are not exact doubles
  const q = pricingFromConfig({ input: 0.1, output: 0.3, perMinute: 0.006, webSearch: 0.025 });
  t.equal(q.input, 100_000n);
  t.equal(q.output, 300_000n);
  t.equal(q.perMinute, 6_000_000_000n);
  t.equal(q.webSearch, 25_000_000_000n);
});

t.test('cost: each token class once, exact integers', async (t) => {
  const p = priceOf(opus);
  // 1000×5 + 500×25 + 2000×0.5 + 300×6.25 = 20,375 $/M-token units = $0.020375
  t.equal(costUnits(p, usage({ input: 1000, output: 500, cacheRead: 2000, cacheWrite: 300 })), 20_375_000);
  t.equal(costUnits(p, emptyUsage()), 0);
  // reasoning is inside output: the same cost whatever the reasoning count
  t.equal(costUnits(p, usage({ output: 500, reasoning: 400 })), costUnits(p, usage({ output: 500 })));
  // cache prices default to the input price
  const f = priceOf(fable);
  t.equal(costUnits(f, usage({ cacheRead: 1000 })), costUnits(f, usage({ input: 1000 })));
  t.equal(costUnits(f, usage({ cacheWrite: 1000 })), 800_000);
  // web searches at $0.01 each by default
  t.equal(costUnits(f, usage({ webSearches: 3 })), 30_000_000);
  // huge counts stay exact (past 2^53 pico-dollars)
  const big = pricingFromConfig({ input: 1000, output: 1000 });
  t.equal(costUnits(big, usage({ output: 10_000_000 })), 10_000_000_000_000, '$10,000 exactly');
});

t.test('cost rounds once, half up, to nano-dollars', async (t) => {
  const p = pricingFromConfig({ input: 0.0005, output: 0.0004 }); // 500 and 400 pico per token
  t.equal(costUnits(p, usage({ input: 1 })), 1, '0.5 rounds up');
  t.equal(costUnits(p, usage({ input: 2 })), 1, '1.0');
  t.equal(costUnits(p, usage({ input: 3 })), 2, '1.5 rounds up');
  t.equal(costUnits(p, usage({ output: 1 })), 0, '0.4 rounds down');
  t.equal(costUnits(p, usage({ input: 1, output: 1 })), 1, 'the sum is rounded, not each part (0.9 → 1)');
  const q = pricingFromConfig({ input: 0.0001, output: 0.0001 }); // 100 pico
  t.equal(costUnits(q, usage({ input: 4, output: 1 })), 1, '0.5 from two classes rounds up once');
});

t.test('per-minute audio pricing', async (t) => {
  const p = pricingFromConfig({ perMinute: 0.006 });
  t.equal(costForSeconds(p, 90), 9_000_000, '$0.009 for 90 s');
  t.equal(costForSeconds(p, 0.001), 100, 'one millisecond');
  t.equal(costForSeconds(p, 0), 0);
  t.equal(costForSeconds(pricingFromConfig({ input: 1, output: 1 }), 60), 0, 'no perMinute price: no audio charge');
  const both = pricingFromConfig({ input: 2.5, output: 10, perMinute: 0.006 });
  t.equal(totalCostUnits(both, usage({ input: 100, output: 10 }), 60), 250_000 + 100_000 + 6_000_000);
  t.equal(totalCostUnits(both, null, null), 0);
  t.equal(totalCostUnits(both, usage({ input: 7 }), null), costUnits(both, usage({ input: 7 })));
});

t.test('reservation estimate: input bound at the highest input price, output ceiling, searches', async (t) => {
  const routed = makeRouted(opus.id, { inputTokenBound: 1000 });
  // 1000 × 6.25 + 64000 × 25 = 1,606,250 → $1.60625
  t.equal(estimateUnits(opus, routed), 1_606_250_000);
  t.equal(estimateUnits(opus, makeRouted(opus.id, { inputTokenBound: 1000, maxTokens: 100 })), 6_250_000 + 2_500_000);
  t.equal(estimateUnits(opus, makeRouted(opus.id, { inputTokenBound: 0, maxTokens: 1, hostedToolUses: 2 })), 25_000 + 20_000_000);
  t.equal(tokenEstimate(opus, makeRouted(opus.id, { inputTokenBound: 1000, maxTokens: 100 })), 1100);
  t.equal(tokenEstimate(fable, makeRouted(fable.id, { inputTokenBound: 10 })), 10 + 8192, "the model's maximum output");
  const tiny = pricingFromConfig({ input: 0.0004, output: 0 });
  t.equal(tiny.input, 400n);
  const model: CatalogModel = { ...fable, pricing: { input: 0.0004, output: 0 } };
  t.equal(estimateUnits(model, makeRouted(model.id, { inputTokenBound: 1, maxTokens: 1 })), 1, 'rounded up, never down');
  const audio: CatalogModel = { ...fable, pricing: { input: 0, output: 0, perMinute: 0.006 } };
  t.equal(estimateUnits(audio, makeRouted(audio.id, { inputTokenBound: 0, maxTokens: 1 }), 90), 9_000_000);
});

t.test('the estimate bounds the cost of any usage within the request bounds', async (t) => {
  let seed = 7;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % (n + 1);
  };
  for (const model of [opus, fable]) {
    for (let i = 0; i < 500; i++) {
      const bound = rand(200_000);
      const maxTokens = 1 + rand(model.maxOutputTokens - 1);
      const searches = rand(5);
      const routed = makeRouted(model.id, { inputTokenBound: bound, maxTokens, hostedToolUses: searches });
      const cacheRead = rand(bound);
      const cacheWrite = rand(bound - cacheRead);
      const u = usage({ input: bound - cacheRead - cacheWrite, cacheRead, cacheWrite, output: rand(maxTokens), webSearches: rand(searches) });
      const cost = costUnits(priceOf(model), u);
      if (cost > estimateUnits(model, routed)) t.fail(`cost ${cost} above estimate for ${JSON.stringify(u)}`);
    }
  }
  t.pass('no usage within bounds costs more than its reservation');
});

t.test('formatUsd and parseUsd are exact', async (t) => {
  t.equal(formatUsd(10_000_000_000), '$10.00');
  t.equal(formatUsd(9_990_000_000), '$9.99');
  t.equal(formatUsd(125_000), '$0.000125');
  t.equal(formatUsd(1), '$0.000000001');
  t.equal(formatUsd(0), '$0.00');
  t.equal(formatUsd(-50_000_000), '-$0.05');
  t.equal(parseUsd('12.5'), 12_500_000_000);
  t.equal(parseUsd('0.1'), 100_000_000);
  t.equal(parseUsd('-0.000000001'), -1);
  t.equal(parseUsd('7'), 7_000_000_000);
  t.equal(parseUsd('1.0000000001'), null, 'more than 9 decimals');
  t.equal(parseUsd('1e3'), null);
  t.equal(parseUsd(''), null);
});
