// The fused runner (lib/fused-chain.ts) as the pipeline drives it, on toy stages shaped like the
// real ones: an upstream that is an async iterable (dispatch), a stage that splits a chunk into many
// items (sse-decode), one that answers a single item with an async iterable (settle's commit), and
// notes among the items. What one upstream chunk turns into goes on as ONE piece (split only where a
// stage answered asynchronously), items after an asynchronous answer keep their place, nothing is pulled from upstream before the consumer asks,
// and a failure or a consumer that stops closes the upstream.
import t from 'tap';
import type { RequestContext } from '../../lib/context.js';
import { fuseStages } from '../../lib/fused-chain.js';
import type { ChainNote } from '../../lib/notes.js';
import type { Stage } from '../../lib/stage.js';
import { makeContext } from '../helpers/context.js';

interface Upstream {
  pulled: number;
  closed: boolean;
}

/** dispatch: a note, then the chunks, one per pull */
function upstream(state: Upstream, chunks: string[]): Stage<unknown, unknown> {
  async function* body(): AsyncGenerator<unknown> {
    try {
      yield { note: 'headers', headers: { 'x-up': '1' } } satisfies ChainNote;
      for (const c of chunks) {
        state.pulled++;
        yield c;
      }
    } finally {
      state.closed = true;
    }
  }
  return { name: 'dispatch', step: () => body() };
}

/** sse-decode: a chunk into its lines (an array) */
const split: Stage<unknown, unknown> = { name: 'split', step: (c) => (c as string).split(' ').filter((w) => w !== '') };

/** settle: `stop` goes on only after an await (an async generator); `boom` fails; the rest as one-item arrays */
function commit(log: string[]): Stage<unknown, unknown> {
  async function* later(item: string): AsyncGenerator<string> {
    await new Promise((resolve) => setImmediate(resolve));
    log.push('committed');
    yield item;
  }
  return {
    name: 'commit',
    step: (item) => {
      if (item === 'boom') throw new Error('boom');
      return item === 'stop' ? later(item as string) : [item];
    },
  };
}

/** encode: each item a frame; a sync generator for `two` (two frames) */
const frame: Stage<unknown, unknown> = {
  name: 'frame',
  step: (item) =>
    item === 'two'
      ? (function* () {
          yield '[two-a]';
          yield '[two-b]';
        })()
      : [`[${item as string}]`],
  flush: () => ['[end]'],
};

async function* request(): AsyncGenerator<unknown> {
  yield 'go';
}

function chain(state: Upstream, chunks: string[], log: string[], notes: ChainNote[]): AsyncGenerator<string> {
  const ctx = makeContext() as unknown as RequestContext;
  return fuseStages<string>([upstream(state, chunks), split, commit(log), frame], ctx, (n) => notes.push(n))(request());
}

t.test('one piece per upstream chunk, in order, around an asynchronous answer; notes aside', async (t) => {
  const state = { pulled: 0, closed: false };
  const log: string[] = [];
  const notes: ChainNote[] = [];
  const pieces: string[] = [];
  for await (const piece of chain(state, ['a two b', 'c stop d e', 'f'], log, notes)) {
    pieces.push(piece);
    log.push(`piece ${pieces.length}`);
  }
  // an asynchronous answer is a boundary: what came before it and its own output go on together once
  // it arrived (settle: the last frames leave with the charge committed), the rest of the chunk next
  t.same(pieces, ['[a][two-a][two-b][b]', '[c][stop]', '[d][e]', '[f]', '[end]']);
  t.same(log, ['piece 1', 'committed', 'piece 2', 'piece 3', 'piece 4', 'piece 5'], 'nothing of the chunk went on before the answer came');
  t.same(notes, [{ note: 'headers', headers: { 'x-up': '1' } }]);
  t.ok(state.closed);
});

t.test('nothing is pulled from upstream before the consumer asks for more', async (t) => {
  const state = { pulled: 0, closed: false };
  const it = chain(state, ['a', 'b', 'c'], [], []);
  t.same(await it.next(), { done: false, value: '[a]' });
  t.equal(state.pulled, 1, 'one chunk read for one piece');
  t.same(await it.next(), { done: false, value: '[b]' });
  t.equal(state.pulled, 2);
  await it.return(undefined);
  t.ok(state.closed, 'a consumer that stops closes the upstream');
});

t.test('a stage that fails closes the upstream, and the failure reaches the consumer', async (t) => {
  const state = { pulled: 0, closed: false };
  const pieces: string[] = [];
  await t.rejects(
    (async () => {
      for await (const piece of chain(state, ['a', 'b boom c', 'd'], [], [])) pieces.push(piece);
    })(),
    { message: 'boom' },
  );
  t.same(pieces, ['[a]'], 'the failed chunk gave nothing');
  t.equal(state.pulled, 2, 'nothing read after the failure');
  t.ok(state.closed, 'the upstream was closed');
});
