// The pieces of the fused runner (fused-chain.ts) that are not its loop: what is still to be fed
// into one stage, and how a chunk's output pieces become the one piece written.

/** Pieces of output as one: the piece itself, the joined text, or the concatenated bytes. */
export function joinPieces<O extends string | Buffer>(pieces: readonly O[]): O {
  if (pieces.length === 1) return pieces[0]!;
  let text = true;
  for (let k = 0; k < pieces.length && text; k++) text = typeof pieces[k] === 'string';
  if (text) return pieces.join('') as O;
  return Buffer.concat(pieces.map((p): Buffer => (typeof p === 'string' ? Buffer.from(p) : (p as Buffer)))) as O;
}

/**
 * What is still to be fed into one stage (level i: stage i's input; level n: the chain's output):
 * the rest of an array, or an iterator. One per level, made the first time the level is pushed (most
 * stages answer with one item, fed at once without a level) and reused: the items at a level come
 * from the stage below it, so a level is never busy twice at once.
 */
export class Level {
  items: readonly unknown[] | undefined = undefined;
  pos = 0;
  /** the end of the run of values `pos` is in (found once per run, not again for each item a stage leaves to `step`) */
  end = 0;
  /** where the notes are among `items`, when known as the level was pushed (fused-runs.ts `notePlaces`); undefined: found by asking each item */
  notes: readonly number[] | undefined = undefined;
  /** the first of `notes` not behind `pos` (or past them all) */
  nextNote = 0;
  iter: Iterator<unknown> | undefined = undefined;
  asyncIter: AsyncIterator<unknown> | undefined = undefined;
  /** an item was taken from `asyncIter`: its output goes to the consumer before the next is awaited */
  pulled = false;
  /** the stage's `steps` threw: thrown when the level is back on top (the outputs before it went on first) */
  failed = false;
  error: unknown = undefined;
}
