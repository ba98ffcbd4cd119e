// A strict RFC 8259 JSON parser. Unlike JSON.parse it rejects duplicate object keys, non-finite
// numbers, a byte order mark and invalid UTF-8, and every error names the JSON path and the UTF-8
// byte offset where it was found. This is its entry point (options, bytes to text); the grammar is
// in strict-grammar.ts, the error class and message helpers in syntax-error.ts, the invalid UTF-8
// slow path in utf8.ts.
import type { JsonValue } from '../chunks.js';
import { runStrict } from './strict-grammar.js';
import { JsonSyntaxError } from './syntax-error.js';
import { locateInvalidUtf8 } from './utf8.js';

export { formatPath } from './path.js';
export { JsonSyntaxError } from './syntax-error.js';
export { findInvalidUtf8 } from './utf8.js';

export interface StrictParseOptions {
  /** maximum nesting of arrays and objects; default 512 */
  maxDepth?: number;
  /**
   * Filled with where each member value of a top-level object lies in the text: key → [start, end)
   * in UTF-16 code units of the decoded text (for splicing a changed value into the original bytes).
   */
  topLevel?: Map<string, [number, number]>;
}

export const DEFAULT_MAX_DEPTH = 512;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parse strict JSON. Throws JsonSyntaxError. `input` may be a Buffer/Uint8Array (UTF-8 bytes) or a string. */
export function parseStrict(input: string | Uint8Array, opts?: StrictParseOptions): JsonValue {
  const limit = opts?.maxDepth ?? DEFAULT_MAX_DEPTH;
  const ranges = opts?.topLevel ?? null;
  if (typeof input === 'string') return runStrict(input, limit, ranges);
  if (input.length >= 3 && input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf) {
    throw new JsonSyntaxError('a byte order mark is not allowed', '', 0);
  }
  let text: string;
  try {
    text = utf8.decode(input);
  } catch {
    return locateInvalidUtf8(input, (prefix) => runStrict(prefix, limit, null));
  }
  return runStrict(text, limit, ranges);
}
