// reserve-credits' `close` waits for a hold only while it may still be committing: once the hold
// committed and its `reserved` note went on (every answered request), `close` returns nothing to
// await (no promise, no microtask turn per request); a chain that ends before that still gets a
// promise that settles once the hold did, so a hold never outlives its request.
import t from 'tap';
import type { RoutedRequest } from '../../lib/chunks.js';
import type { ChainNote } from '../../lib/notes.js';
import type { Stage } from '../../lib/stage.js';
import { reserveCredits } from '../../stages/reserve-credits.js';
import { makeContext, makeRouted } from '../helpers/context.js';

const OPUS = 'anthropic/claude-opus-5';

type Out = RoutedRequest | ChainNote;

function start(): { stage: Stage<RoutedRequest, Out>; iter: AsyncIterator<Out>; ctx: ReturnType<typeof makeContext> } {
  const ctx = makeContext();
  const stage = reserveCredits()(ctx) as Stage<RoutedRequest, Out>;
  const out = stage.step(makeRouted(OPUS, { inputTokenBound: 100, maxTokens: 100 }), ctx) as AsyncIterable<Out>;
  return { stage, iter: out[Symbol.asyncIterator](), ctx };
}

t.test('after the reserved note went on, close has nothing to wait for', async (t) => {
  const { stage, iter, ctx } = start();
  const headers = await iter.next();
  t.equal((headers.value as ChainNote).note, 'headers');
  const reserved = await iter.next();
  t.equal((reserved.value as ChainNote).note, 'reserved');
  t.equal(stage.close!(ctx, undefined), undefined, 'no promise');
  const item = await iter.next();
  t.equal(item.done, false);
  t.equal((await iter.next()).done, true);
  t.equal(stage.close!(ctx, undefined), undefined);
});

t.test('a chain that ends before the hold went on waits for the hold at close', async (t) => {
  const { stage, iter, ctx } = start();
  await iter.next(); // the headers note only: the hold is still being committed
  const closing = stage.close!(ctx, undefined);
  t.ok(closing instanceof Promise, 'a promise to wait for');
  await closing;
  t.pass('it settles once the hold committed');
});
