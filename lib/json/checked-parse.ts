// parseChecked: JSON.parse with the strict parser's guarantees, for text that is nearly always
// well-formed (provider events and responses). V8's JSON.parse builds objects 2-3x faster than the
// strict grammar, which must store every key through a generic keyed store; what it lacks is the
// duplicate-key check, the depth limit and the refusal of numbers that overflow to ±Infinity.
// Those are checked after it:
// - depth and numbers by one walk over the parsed value;
// - duplicate keys by counting. JSON.parse keeps one member per distinct key, so a document has a
//   duplicate exactly when it holds more keys than its objects hold members. Every key ends with an
//   unescaped `"`, optional whitespace and its own `:`, so counting the colons that follow an
//   unescaped quote counts every key once; a colon inside a string counts too only when the string
//   starts with ":" after optional spaces (an overcount). The count is never below the real number of keys, so equal
//   counts prove there is no duplicate, and a count that is too high only costs a strict parse.
// Anything that fails a check, or that JSON.parse refuses, is parsed again by parseStrict, which
// returns the same value or throws the exact JsonSyntaxError with path and byte offset.
import { isAscii } from 'node:buffer';
import type { JsonValue } from '../chunks.js';
import { memberRange, memberSpans } from './member-spans.js';
import { DEFAULT_MAX_DEPTH, parseStrict } from './strict-parse.js';
import type { RawJson } from './splice.js';

/** Parse `text` exactly as `parseStrict(text)` would (same value, same errors), faster when it is valid. */
export function parseChecked(text: string, maxDepth: number = DEFAULT_MAX_DEPTH): JsonValue {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return parseStrict(text, { maxDepth });
  }
  const members = countMembers(value, 0, maxDepth);
  if (members >= 0 && members === keyTokens(text)) return value;
  return parseStrict(text, { maxDepth });
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A client's request body, parsed: its value, its bytes and, when first asked for, where its
 * top-level members lie (RawJson, for splicing a native request). The ranges cost a scan of the
 * whole text, about 1 µs per KB: a native request that goes upstream as the client's bytes with
 * nothing edited never asks for them. The text is kept for that scan (decoding the bytes again
 * would cost twice the scan), as long as the bytes are: dispatch lets both go once an answer is
 * committed (`RoutedRequest.request.raw`).
 */
export class CheckedBody implements RawJson {
  private ranges: Map<string, [number, number]> | undefined;
  private text: string | null;

  constructor(
    readonly value: JsonValue,
    readonly bytes: Buffer,
    text: string | null,
    ranges?: Map<string, [number, number]>,
    /** the bytes are all ASCII (found while decoding them); undefined: not known */
    readonly ascii?: boolean,
  ) {
    this.text = text;
    this.ranges = ranges;
  }

  get members(): Map<string, [number, number]> {
    if (this.ranges === undefined) {
      this.ranges = topLevelRanges(this.text!);
      this.text = null;
    }
    return this.ranges;
  }

  /**
   * One member's range, as `members.get(key)`: before the ranges are found, by a scan that stops at
   * that member (the body was parsed: no duplicate key), so an edit of an early member (a Chat JSON
   * request's `stream`) does not scan the whole conversation.
   */
  range(key: string): [number, number] | undefined {
    if (this.ranges === undefined && this.text !== null) {
      const found = memberRange(this.text, key);
      if (found !== null) return found;
    }
    return this.members.get(key);
  }
}

/**
 * A client's request body: `parseStrict(bytes, { topLevel })` exactly (the same value, the same
 * top-level member ranges, the same errors), faster when it is valid: the text is parsed by
 * `parseChecked` and the ranges found later, by one scan of it (member-spans.ts), if asked for. A
 * byte order mark and invalid UTF-8 go to the strict parser, which throws the exact error.
 */
export function checkedBody(bytes: Buffer): CheckedBody {
  const strict = (): CheckedBody => {
    const members = new Map<string, [number, number]>();
    return new CheckedBody(parseStrict(bytes, { topLevel: members }), bytes, null, members);
  };
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return strict();
  let text: string;
  // an ASCII body (most are) is the same text read as latin1, without the UTF-8 decoder's checks
  const ascii = isAscii(bytes);
  if (ascii) text = bytes.toString('latin1');
  else {
    try {
      text = UTF8.decode(bytes);
    } catch {
      return strict();
    }
  }
  const value = parseChecked(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return new CheckedBody(value, bytes, null, new Map());
  return new CheckedBody(value, bytes, text, undefined, ascii);
}

/** The ranges of a valid JSON object's top-level member values. */
function topLevelRanges(text: string): Map<string, [number, number]> {
  const members = new Map<string, [number, number]>();
  const spans = memberSpans(text);
  if (spans === null) {
    parseStrict(text, { topLevel: members }); // never expected: the strict parser's ranges
    return members;
  }
  for (const [key, span] of spans.members) members.set(key, [span[1], span[2]]);
  return members;
}

/** Colons that follow an unescaped `"` (and JSON whitespace): every key's, plus rare overcounts. */
function keyTokens(text: string): number {
  let n = 0;
  for (let p = text.indexOf(':'); p !== -1; p = text.indexOf(':', p + 1)) {
    let q = p - 1;
    let c = text.charCodeAt(q);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(--q);
    if (c !== 0x22) continue;
    let b = q - 1;
    while (text.charCodeAt(b) === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) n++; // an even run of backslashes: the quote itself is not escaped
  }
  return n;
}

/**
 * Members of every object in `v` (at nesting `level`), or -1 when a container lies at `maxDepth` or
 * deeper or a number is not finite.
 */
function countMembers(v: JsonValue, level: number, maxDepth: number): number {
  if (typeof v === 'number') return Number.isFinite(v) ? 0 : -1;
  if (typeof v !== 'object' || v === null) return 0;
  if (level >= maxDepth) return -1;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const k = countMembers(v[i]!, level + 1, maxDepth);
      if (k < 0) return -1;
      n += k;
    }
    return n;
  }
  for (const key in v) {
    const k = countMembers(v[key]!, level + 1, maxDepth);
    if (k < 0) return -1;
    n += k + 1;
  }
  return n;
}
