// The error side of the strict JSON parser (strict-parse.ts): the JsonSyntaxError it throws and the
// helpers that word its messages. None of this runs unless the input is invalid.

export class JsonSyntaxError extends Error {
  /** path of the value where the error is, '' for the root (shown as "(root)" in the message) */
  readonly path: string;
  /** UTF-8 byte offset in the input (for string input: in its UTF-8 encoding) */
  readonly offset: number;
  /** what is wrong, without the location */
  readonly reason: string;
  constructor(reason: string, path: string, offset: number) {
    super(`at byte ${offset} (${path === '' ? 'root' : path}): ${reason}`);
    this.name = 'JsonSyntaxError';
    this.path = path;
    this.offset = offset;
    this.reason = reason;
  }
}

/** The character at `at` in `text` as an error message names it (or "end of input"). */
export function describe(text: string, at: number): string {
  if (at >= text.length) return 'end of input';
  const c = text.codePointAt(at) as number;
  if (c < 0x20 || c === 0x7f) return `control character U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  return `character ${JSON.stringify(String.fromCodePoint(c))}`;
}

/** What is wrong in an invalid string, and the index in the text where it is. */
export interface StringError {
  reason: string;
  at: number;
}

/**
 * The exact error in a string that JSON.parse rejected: `start` is the index after its opening
 * quote, `i` that of its first backslash.
 */
export function findStringError(text: string, start: number, i: number): StringError {
  const len = text.length;
  for (; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return { reason: 'invalid string', at: start - 1 }; // not reached: JSON.parse accepted nothing less
    if (c === 0x5c) {
      if (i + 1 >= len) break;
      const e = text.charCodeAt(i + 1);
      if (e === 0x75) {
        for (let k = i + 2; k < i + 6; k++) {
          if (k >= len) return { reason: 'unterminated string', at: len };
          const h = text.charCodeAt(k) | 0x20; // lower-cases A-F
          if (!((h >= 0x30 && h <= 0x39) || (h >= 0x61 && h <= 0x66))) return { reason: 'invalid \\u escape: expected 4 hex digits', at: k };
        }
        i += 5;
      } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i++;
      } else {
        return { reason: `invalid escape "\\${String.fromCodePoint(text.codePointAt(i + 1) as number)}" in string`, at: i };
      }
    } else if (c < 0x20) {
      return { reason: `unescaped ${describe(text, i)} in string`, at: i };
    }
  }
  return { reason: 'unterminated string', at: len };
}
