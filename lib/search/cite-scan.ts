// Finding the citation markers `【ws_…】` in streamed text: a marker may be split across deltas anywhere,
// so a `【` near the end of a delta is held back until it closes or can no longer be a marker. A marker
// whose id the answer's searches did not return is not a citation: it stays in the text as written.
export const CITE_OPEN = '【';
export const CITE_CLOSE = '】';

/** Longer than any result id (`ws_` and ten characters); a longer run is text, not a marker. */
const MAX_ID = 32;
const ID_CHAR = /[A-Za-z0-9_-]/;

export type ScanPiece = { text: string } | { cite: string };

export class MarkerScanner {
  /** a possible marker's beginning (starts with CITE_OPEN), held until the next delta decides it */
  private held = '';

  constructor(private readonly known: (id: string) => boolean) {}

  /** The text and citations `text` completes, in order; text pieces are never empty. */
  feed(text: string): ScanPiece[] {
    const s = this.held + text;
    this.held = '';
    const out: ScanPiece[] = [];
    let plainStart = 0;
    let from = 0;
    for (;;) {
      const open = s.indexOf(CITE_OPEN, from);
      if (open < 0) break;
      let j = open + 1;
      while (j < s.length && j - open - 1 < MAX_ID && ID_CHAR.test(s[j]!)) j++;
      if (j === s.length) {
        // may still become a marker: hold it back
        if (open > plainStart) out.push({ text: s.slice(plainStart, open) });
        this.held = s.slice(open);
        return out;
      }
      const id = s.slice(open + 1, j);
      if (s[j] === CITE_CLOSE && id !== '' && this.known(id)) {
        if (open > plainStart) out.push({ text: s.slice(plainStart, open) });
        out.push({ cite: id });
        plainStart = from = j + 1;
      } else {
        from = open + 1; // not a marker: the bracket is text
      }
    }
    let last = s.length;
    // half a surrogate pair waits for its other half, so no delta ends inside a code point
    const c = s.charCodeAt(last - 1);
    if (c >= 0xd800 && c <= 0xdbff && last > plainStart) this.held = s.slice(--last);
    if (last > plainStart) out.push({ text: s.slice(plainStart, last) });
    return out;
  }

  /** The text still held back when the block ends: it never closed, so it is text. */
  flush(): string {
    const held = this.held;
    this.held = '';
    return held;
  }
}

/** Code points of `s` (a surrogate pair counts once). */
export function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const p = s.charCodeAt(i - 1);
      if (p >= 0xd800 && p <= 0xdbff) continue;
    }
    n++;
  }
  return n;
}

/**
 * Where a sentence ends: `.`, `!` or `?` (and closing quotes, brackets, emphasis) before white space and
 * a character that is not lower case (`Node.js? covers it` and `e.g. this` are one sentence); a CJK
 * full stop, exclamation or question mark; a line break.
 */
const SENTENCE_END = /[.!?]+["'”’)\]*_]*\s+(?=[^\p{Ll}\s])|[。！？]+["'”’)\]*_]*\s*|\n\s*/gu;

/**
 * The cited part of `text` (the text since the previous marker) as [start, end) code-unit offsets:
 * the last sentence before the marker, white space trimmed. Empty (start = end) when nothing is left.
 */
export function citedSpan(text: string): [number, number] {
  const end = text.trimEnd().length;
  let start = 0;
  SENTENCE_END.lastIndex = 0;
  const head = text.slice(0, end);
  for (let m = SENTENCE_END.exec(head); m !== null; m = SENTENCE_END.exec(head)) {
    // a sentence end at the very end is the cited sentence's own
    if (m.index + m[0].length < end) start = m.index + m[0].length;
  }
  while (start < end && /\s/.test(text[start]!)) start++;
  return [Math.min(start, end), end];
}
