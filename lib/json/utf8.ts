// UTF-8 well-formedness (RFC 3629): used to locate the bad byte when strict decoding fails, and to
// report it with the JSON path of the value that holds it.
import { JsonSyntaxError } from './syntax-error.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Offset of the first byte that starts an ill-formed UTF-8 sequence (overlong, lone continuation,
 * truncated, surrogate, above U+10FFFF), or -1 when the bytes are well-formed.
 */
export function findInvalidUtf8(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    if (i + need >= n) return i;
    const c1 = b[i + 1] as number;
    if (c1 < lo || c1 > hi) return i;
    for (let k = 2; k <= need; k++) if (((b[i + k] as number) & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return -1;
}

/**
 * Throws the JsonSyntaxError for JSON bytes that are not valid UTF-8. Slow path, only for invalid
 * input: `parsePrefix` parses the well-formed prefix before the bad byte. A syntax error inside it
 * comes first and is reported as is; running out of input there gives the path of the value that
 * holds the bad byte.
 */
export function locateInvalidUtf8(input: Uint8Array, parsePrefix: (text: string) => unknown): never {
  const bad = findInvalidUtf8(input);
  const at = bad < 0 ? 0 : bad; // cannot happen: the decoder rejected the input
  let path = '';
  try {
    parsePrefix(utf8.decode(input.subarray(0, at)));
  } catch (err) {
    if (!(err instanceof JsonSyntaxError) || err.offset < at) throw err;
    path = err.path;
  }
  throw new JsonSyntaxError('invalid UTF-8', path, at);
}
