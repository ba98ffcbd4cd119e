// A text written into several frames, made one flat string once.
/**
 * `s` as one flat string, for a text written into several frames: a template's result is a tree of
 * its pieces, which each frame it goes into would hold and the chain's join of a chunk's frames would
 * walk again; V8 flattens it in place once a character of it is read.
 */
export function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}
