// count-tokens: after a count_tokens request validated and routed, always GW_ERR_COUNT_TOKENS_UNAVAILABLE
// (404) naming the routed model: no count is guessed, no provider is called, nothing is output.
import t from 'tap';
import { route } from '../../stages/route.js';
import { countTokensUnavailable } from '../../stages/count-tokens.js';
import { chain } from '../../lib/stage.js';
import { makeContext, makeRouted } from '../helpers/context.js';
import { failed, run } from './harness.js';

t.test('a routed request: refused with the model it routed to, nothing output', async (t) => {
  const ctx = makeContext({ endpoint: 'messages.count_tokens' });
  const got = await run(countTokensUnavailable()(ctx), [makeRouted('anthropic/claude-fable-5')], ctx);
  t.same(got.values, []);
  t.match(failed(got), { code: 'GW_ERR_COUNT_TOKENS_UNAVAILABLE', status: 404, message: /^Token counting is not available on this gateway for model anthropic\/claude-fable-5: .*nothing was charged/ });
});

t.test('after route, as the endpoint chains it: the routed note went out before the refusal', async (t) => {
  const ctx = makeContext({ endpoint: 'messages.count_tokens' });
  const got = await run(chain(route()(ctx), countTokensUnavailable()(ctx)), [makeRouted('x', { model: 'claude-opus-5' }).request], ctx);
  t.same(got.notes.map((n) => n.note), ['routed'], 'settle still learns the model');
  t.match(failed(got), { code: 'GW_ERR_COUNT_TOKENS_UNAVAILABLE', message: /model anthropic\/claude-opus-5/ });
  const empty = await run(countTokensUnavailable()(ctx), [], ctx);
  t.equal(empty.error, undefined, 'no request, no refusal');
});
