// The order edits to a JSON text are made in: by place, insertions at one place in the order they
// were made (stable). An insertion sort: a body or an answer has a handful of edits, mostly made in
// order already, and Array#sort's setup (TimSort, a comparator call per pair) cost more than the
// sorting itself, on every native request and answer.

/** `edits` sorted by `start` in place (stable); returned for chaining. */
export function byStart<T extends { readonly start: number }>(edits: T[]): T[] {
  for (let i = 1; i < edits.length; i++) {
    const e = edits[i]!;
    let j = i - 1;
    while (j >= 0 && edits[j]!.start > e.start) {
      edits[j + 1] = edits[j]!;
      j--;
    }
    edits[j + 1] = e;
  }
  return edits;
}
