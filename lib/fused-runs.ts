// Where the runs of values end among a level's items (fused-runner.ts `batch`): the values up to the
// next note go into a stage's `steps` at once. Asking `isNote` of an item is a property load on
// whatever the item is (a Buffer, a message, an event of any type: a megamorphic load, about 280 a
// stream), so the items a stage's `steps` passed on unchanged are not asked again: the very object
// that went in as a value (the run it was taken from held no note) is a value again, and a string is
// never a note. Where the notes among such an output are is found once, when it becomes a level.
import type { Level } from './fused-level.js';
import { isNote } from './notes.js';

/** a stage's output with no note among it */
export const NO_NOTES: readonly number[] = [];

/** the index of the first note in `items` from `from` on (`items.length`: none), each item asked */
export function runEnd(items: readonly unknown[], from: number): number {
  let to = from;
  while (to < items.length && !isNote(items[to])) to++;
  return to;
}

/**
 * Where the notes are (their indexes, in order) in what a stage's `steps` output from the values
 * `inputs[from..taken)`: an output that is the next of those inputs itself (the stage passed it on,
 * as most stages do most frames) or a string is known not to be a note; only the others are asked.
 */
export function notePlaces(out: readonly unknown[], inputs: readonly unknown[], from: number, taken: number): readonly number[] {
  let next = from;
  let places: number[] | undefined;
  for (let k = 0; k < out.length; k++) {
    const item = out[k];
    if (next < taken) {
      if (item === inputs[next]) {
        next++;
        continue;
      }
      // the input before it dropped or replaced (by an output of its own: an event made from a
      // message, a usage-corrected copy)
      if (next + 1 < taken && item === inputs[next + 1]) {
        next += 2;
        continue;
      }
    }
    if (typeof item !== 'string' && isNote(item)) (places ??= []).push(k);
  }
  return places ?? NO_NOTES;
}

/** every item a string: pieces of output, none of them a note */
export function allText(items: readonly unknown[]): boolean {
  for (let k = 0; k < items.length; k++) if (typeof items[k] !== 'string') return false;
  return true;
}

/**
 * The end of the run of values at `items[from..]` of a level: `from` itself when the item there is
 * a note. Where the level's notes are is known when it was pushed from a stage's `steps` or from a
 * stage that promised `outputsNoNotes` (lib/stage.ts); else the
 * items are asked, once per run (`level.end`), not again for each item a stage leaves to `step`.
 */
export function runTo(level: Level, items: readonly unknown[], from: number): number {
  const notes = level.notes;
  if (notes !== undefined) {
    let j = level.nextNote;
    while (j < notes.length && notes[j]! < from) j++;
    level.nextNote = j;
    return j < notes.length ? notes[j]! : items.length;
  }
  if (level.end > from) return level.end;
  if (isNote(items[from])) return from;
  return (level.end = runEnd(items, from + 1));
}
