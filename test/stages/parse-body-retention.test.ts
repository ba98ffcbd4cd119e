// parse-body lives as long as its request, a stream's too (the chain closes its stages at the end):
// once the body is parsed it must not keep the request's chunks. With a Claude-Code-sized body
// (200 KB) that was 200 KB per open stream, kept after dispatch let the request's bytes go.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { parseBody } from '../../stages/parse-body.js';
import { makeContext } from '../helpers/context.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

t.test('a parsed body: the stage, still open, keeps none of the chunks it was fed', async (t) => {
  const ctx = makeContext({ key: null });
  const stage = parseBody({ limit: 1 << 20 })(ctx);
  const refs: WeakRef<Buffer>[] = [];
  // fed and parsed in a helper whose frame is gone when it returns; the parsed body is dropped too,
  // as dispatch lets the request's bytes go once an answer is committed
  const feed = (): unknown => {
    const text = JSON.stringify({ model: 'anthropic/claude-opus-5', max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(4096) }] });
    const half = text.length >> 1;
    for (const part of [text.slice(0, half), text.slice(half)]) {
      const chunk = Buffer.from(part);
      refs.push(new WeakRef(chunk));
      stage.step(chunk, ctx);
    }
    const out = stage.flush!(ctx) as unknown[];
    return (out[0] as { value: { max_tokens: number } }).value.max_tokens;
  };
  t.equal(feed(), 10, 'the body parses');
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  t.same(
    refs.map((r) => r.deref() === undefined),
    [true, true],
    'no chunk is kept by the open stage',
  );
  stage.close?.(ctx, undefined, undefined as never);
});
