// A stage's `steps` (lib/stage.ts): the fused runner hands it the frames of one upstream chunk at once
// instead of one at a time. Nothing the client can see may change: the same toy chain run with
// `steps` and without must give the consumer the same pieces and notes and the same failure, and
// every stage the same calls in the same order (items and notes), except that a stage before the
// one that fails may have taken frames after the failing one (the contract of `steps`: what a stage
// does with a frame shows only in its outputs). The cases that differ if a runner got it wrong: a
// note among a chunk's frames, a stage that leaves a frame to `step` (settle's commit, answered
// asynchronously), a stage without `steps` between two with, and two stages that would both fail on
// one chunk (the later stage failing on an earlier frame must win, and the frames before it must
// reach the last stage first).
import t from 'tap';
import type { RequestContext } from '../../lib/context.js';
import { fuseStages } from '../../lib/fused-chain.js';
import type { ChainNote } from '../../lib/notes.js';
import type { Stage } from '../../lib/stage.js';
import { makeContext } from '../helpers/context.js';

/** a note in the toy stream: `n:x` makes one before `x` */
const note = (word: string): ChainNote => ({ note: 'headers', headers: { 'x-n': word } });

/**
 * A toy stage: `map` gives an item's outputs (an array, or an async iterable for `stop`), and every
 * call is logged as `name:item` (notes heard as `name heard x`). With `batched`, it also has `steps`,
 * which leaves `stop` to `step`, as settle leaves its commit.
 */
function toy(name: string, log: string[], batched: boolean, map: (item: string) => unknown[] | AsyncIterable<unknown>): Stage<unknown, unknown> {
  const stage: Stage<unknown, unknown> = {
    name,
    note: (n) => log.push(`${name} heard ${(n as { headers: Record<string, string> }).headers['x-n']}`),
    step: (item) => {
      log.push(`${name}:${item as string}`);
      return map(item as string);
    },
  };
  if (batched) {
    stage.steps = (items, from, to, out) => {
      for (let k = from; k < to; k++) {
        const item = items[k] as string;
        if (item === 'stop') return k;
        log.push(`${name}:${item}`);
        for (const o of map(item) as unknown[]) out.push(o);
      }
      return to;
    };
  }
  return stage;
}

async function* later(item: string): AsyncGenerator<string> {
  await new Promise((resolve) => setImmediate(resolve));
  yield item;
}

interface Run {
  pieces: string[];
  notes: string[];
  log: string[];
  error: string | undefined;
}

async function run(chunks: string[], batched: boolean): Promise<Run> {
  const log: string[] = [];
  const notes: string[] = [];
  const dispatch: Stage<unknown, unknown> = {
    name: 'dispatch',
    step: () =>
      (async function* () {
        for (const c of chunks) yield c;
      })(),
  };
  const split: Stage<unknown, unknown> = { name: 'split', step: (c) => (c as string).split(' ') };
  const decode = toy('decode', log, batched, (w) => {
    if (w === 'bad') throw new Error('decode: bad');
    return w.startsWith('n:') ? [note(w.slice(2)), w.slice(2)] : [w];
  });
  const check = toy('check', log, batched, (w) => {
    if (w === 'late') throw new Error('check: late');
    return w === 'twice' ? [w, w] : [w];
  });
  const plain = toy('plain', log, false, (w) => [w]);
  const commit = toy('commit', log, batched, (w) => (w === 'stop' ? later(w) : [w]));
  const frame = toy('frame', log, batched, (w) => [`[${w}]`]);
  const ctx = makeContext() as unknown as RequestContext;
  const pieces: string[] = [];
  let error: string | undefined;
  try {
    const chain = fuseStages<string>([dispatch, split, decode, check, plain, commit, frame], ctx, (n) => notes.push((n as { headers: Record<string, string> }).headers['x-n']!));
    for await (const piece of chain((async function* () { yield 'go'; })())) pieces.push(piece);
  } catch (err) {
    error = (err as Error).message;
  }
  return { pieces, notes, log, error };
}

const STAGES = ['decode', 'check', 'plain', 'commit', 'frame'];

/** each stage's own calls, in order */
function byStage(log: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const entry of log) (out[entry.split(/[: ]/)[0]!] ??= []).push(entry);
  return out;
}

const CASES: [string, string[]][] = [
  ['frames and notes, a frame answered later, a frame twice', ['a n:b c twice', 'd stop e n:f', 'g']],
  ['an earlier stage fails on a later frame, a later stage on an earlier one', ['a b late bad c']],
  ['an earlier stage fails, after frames that reached the end', ['a n:b c bad d', 'e']],
  ['a later stage fails after a note', ['a', 'n:b late c']],
  ['a failure after a frame answered later', ['a stop b bad']],
  ['a failure on the first frame', ['bad a']],
];

for (const [title, chunks] of CASES) {
  t.test(title, async (t) => {
    const one = await run(chunks, false);
    const batched = await run(chunks, true);
    const got = byStage(batched.log);
    const want = byStage(one.log);
    // the stage that failed, and every stage after it, got exactly the same calls; one before it
    // the same calls first (and then perhaps frames after the failing one)
    const failed = one.error === undefined ? STAGES.length : STAGES.indexOf(one.error.split(':')[0]!);
    for (const [k, stage] of STAGES.entries()) {
      if (k >= failed) t.same(got[stage], want[stage], `${stage} got the same calls in the same order`);
      else t.same(got[stage]?.slice(0, want[stage]?.length ?? 0), want[stage], `${stage} got the same calls first`);
    }
    t.same(batched.pieces, one.pieces, 'the consumer got the same pieces');
    t.same(batched.notes, one.notes, 'and the same notes');
    t.equal(batched.error, one.error, 'and the same failure');
  });
}

t.test('the cases fail as their titles say (so the comparison above compares something)', async (t) => {
  t.equal((await run(CASES[1]![1], false)).error, 'check: late');
  t.equal((await run(CASES[2]![1], false)).error, 'decode: bad');
  const ok = await run(CASES[0]![1], false);
  t.equal(ok.error, undefined);
  t.same(ok.pieces, ['[a][b][c][twice][twice]', '[d][stop]', '[e][f]', '[g]']);
  t.same(ok.notes, ['b', 'f']);
});
