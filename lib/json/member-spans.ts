// Where the members of a JSON object's text lie, for text already known to be valid JSON (a parsed
// upstream answer): a native answer is written to the client as the upstream's text with a few
// members spliced in (lib/dialects/*/through-json.ts, member-edits.ts), and these are the places. One
// pass that jumps over strings with indexOf (an answer's bulk is its text), so it costs far less than
// a parse. Anything unexpected gives null (the caller re-encodes).

/** One member: where its key's opening quote, its value and the end of its value lie. */
export type MemberSpan = readonly [key: number, value: number, end: number];

/**
 * The members of one object, in the order written, each kept as four numbers (its key's text, its
 * value's span); a caller asks for two or three by name, looked up by comparing the name with the
 * text in place. The places can so be given by a scan (memberSpans) or, for text in a layout known to
 * hold them, without one (lib/dialects/openai-chat/completion-layout.ts). `members` makes the Map of
 * every key when asked for.
 */
export class MemberSpans {
  /** per member: key start (its opening quote), key end (just past its closing quote), value start, value end */
  private readonly at: number[] = [];
  /** a member whose key is written with an escape: looked up through `members` (JSON.parse of the key) */
  private escapes = false;
  private map: Map<string, MemberSpan> | undefined = undefined;
  /** where the object's closing `}` lies */
  close = -1;
  /** the object on the `path` asked for, one level down (see memberSpans) */
  inner?: MemberSpans;

  constructor(private readonly text: string) {}

  /** A member's places: its key's opening quote, just past the key, its value's start and end. */
  push(keyAt: number, keyEnd: number, start: number, end: number): void {
    this.at.push(keyAt, keyEnd, start, end);
    if (!this.escapes && escaped(this.text, keyAt + 1, keyEnd - 1)) this.escapes = true;
  }

  /** The span of member `key`, as `members.get(key)` (of duplicate keys, never in checked text, the last). */
  get(key: string): MemberSpan | undefined {
    if (this.escapes) return this.members.get(key);
    const at = this.at;
    for (let i = at.length - 4; i >= 0; i -= 4) {
      const k = at[i]!;
      if (at[i + 1]! - k - 2 === key.length && this.text.startsWith(key, k + 1)) return [k, at[i + 2]!, at[i + 3]!];
    }
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** each key → its span, in UTF-16 units of the text, in the order written (made when first asked for) */
  get members(): Map<string, MemberSpan> {
    if (this.map !== undefined) return this.map;
    const map = new Map<string, MemberSpan>();
    const { at, text } = this;
    for (let i = 0; i < at.length; i += 4) {
      const raw = text.slice(at[i]! + 1, at[i + 1]! - 1);
      const key = raw.includes('\\') ? (JSON.parse(text.slice(at[i]!, at[i + 1]!)) as string) : raw;
      // as the scan kept them: of duplicate keys (never in checked text) the last
      map.set(key, [at[i]!, at[i + 2]!, at[i + 3]!]);
    }
    this.map = map;
    return map;
  }
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** Just past the string that opens at `at` (its `"`); -1 when it does not close. */
function stringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Just past the value that starts at `at`; -1 on anything unexpected. */
export function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === 0x22) return stringEnd(text, at);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) {
        const end = stringEnd(text, i);
        if (end < 0) return -1;
        i = end - 1;
      } else if (d === 0x7b || d === 0x5b) {
        depth++;
      } else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // a number or a literal: up to the next delimiter
  let i = at;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 0x2c || d === 0x7d || d === 0x5d || isSpace(d)) break;
    i++;
  }
  return i === at ? -1 : i;
}

/**
 * The value of a member on the path: scanned as an object (the first element, for an array) whose
 * spans are kept, so that its text is walked once. Just past the value, or -1 when it is not such.
 */
function innerEnd(text: string, start: number, path: readonly string[], found: { inner?: MemberSpans }): number {
  const c = text.charCodeAt(start);
  if (c === 0x7b) {
    const inner = memberSpans(text, start, path);
    if (inner === null) return -1;
    found.inner = inner;
    return inner.close + 1;
  }
  if (c !== 0x5b) return -1;
  const inner = memberSpans(text, start + 1, path);
  if (inner === null) return -1;
  found.inner = inner;
  const after = skipSpace(text, inner.close + 1);
  // an array of one object ends here; with more elements, the rest is walked as usual
  return text.charCodeAt(after) === 0x5d ? after + 1 : valueEnd(text, start);
}

/**
 * The members of the JSON object at `from` in `text` (valid JSON); null when there is none. With a
 * `path` (keys), the object that is the value of its first key (or that array's first element) is
 * scanned too, down the rest of the path, and given as `inner`.
 */
export function memberSpans(text: string, from = 0, path: readonly string[] = []): MemberSpans | null {
  const spans = new MemberSpans(text);
  const found: { inner?: MemberSpans } = {};
  const next = path.length > 0 ? path[0] : undefined;
  const rest = path.length > 1 ? path.slice(1) : NO_PATH;
  let at = skipSpace(text, from);
  if (text.charCodeAt(at) !== 0x7b) return null;
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === 0x7d) {
    spans.close = at;
    return spans;
  }
  for (;;) {
    if (text.charCodeAt(at) !== 0x22) return null;
    const keyAt = at;
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return null;
    const onPath = next !== undefined && (escaped(text, keyAt + 1, keyEnd - 1) ? JSON.parse(text.slice(keyAt, keyEnd)) === next : keyEnd - keyAt - 2 === next.length && text.startsWith(next, keyAt + 1));
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== 0x3a) return null;
    const start = skipSpace(text, at + 1);
    const end = onPath ? innerEnd(text, start, rest, found) : valueEnd(text, start);
    if (end < 0) return null;
    spans.push(keyAt, keyEnd, start, end);
    at = skipSpace(text, end);
    const c = text.charCodeAt(at);
    if (c === 0x7d) {
      spans.close = at;
      if (found.inner !== undefined) spans.inner = found.inner;
      return spans;
    }
    if (c !== 0x2c) return null;
    at = skipSpace(text, at + 1);
  }
}

const NO_PATH: readonly string[] = [];

/**
 * Where the value of the top-level member `key` of the JSON object `text` lies ([start, end), in
 * UTF-16 units), scanning only up to it: for text already parsed and known to hold no duplicate key
 * (a checked request body), so the first match is the member. A native request that edits one early
 * member (a Chat JSON body's `stream`) then walks a few members, not the whole conversation.
 * undefined when there is no such member; null on anything unexpected (the caller scans it all).
 */
export function memberRange(text: string, key: string): [number, number] | undefined | null {
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== 0x7b) return null;
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === 0x7d) return undefined;
  for (;;) {
    if (text.charCodeAt(at) !== 0x22) return null;
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return null;
    const match = escaped(text, at + 1, keyEnd - 1) ? JSON.parse(text.slice(at, keyEnd)) === key : keyEnd - at - 2 === key.length && text.startsWith(key, at + 1);
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== 0x3a) return null;
    const start = skipSpace(text, at + 1);
    const end = valueEnd(text, start);
    if (end < 0) return null;
    if (match) return [start, end];
    at = skipSpace(text, end);
    const c = text.charCodeAt(at);
    if (c === 0x7d) return undefined;
    if (c !== 0x2c) return null;
    at = skipSpace(text, at + 1);
  }
}

/** A step of a path: an object's key, or an array's index. */
export type PathStep = string | number;

/**
 * Where the value at `path` lies in the JSON text (valid JSON) whose value starts at `from`: [start,
 * end), or null when it is not there. Read as JSON.parse reads it: of duplicate keys the last counts.
 * One walk, nothing kept but the span; a key written with an escape gives null (the caller re-encodes).
 */
export function valueSpan(text: string, from: number, path: readonly PathStep[]): [number, number] | null {
  const out: [number, number] = [-1, -1];
  return walk(text, skipSpace(text, from), path, 0, out) < 0 || out[0] < 0 ? null : out;
}

/** A backslash in text[from, to) (a key: short) */
function escaped(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 0x5c) return true;
  return false;
}

/** Walks the value at `at` (just past it, or -1), setting `out` to the span at `path[i..]` within it. */
function walk(text: string, at: number, path: readonly PathStep[], i: number, out: [number, number]): number {
  if (i === path.length) {
    const end = valueEnd(text, at);
    out[0] = at;
    out[1] = end;
    return end;
  }
  const step = path[i]!;
  const c = text.charCodeAt(at);
  if (typeof step === 'number' ? c !== 0x5b : c !== 0x7b) return valueEnd(text, at); // not there
  let p = skipSpace(text, at + 1);
  if (text.charCodeAt(p) === (c === 0x5b ? 0x5d : 0x7d)) return p + 1;
  for (let n = 0; ; n++) {
    let end: number;
    if (typeof step === 'number') {
      end = n === step ? walk(text, p, path, i + 1, out) : valueEnd(text, p);
    } else {
      if (text.charCodeAt(p) !== 0x22) return -1;
      const keyEnd = stringEnd(text, p);
      if (keyEnd < 0 || escaped(text, p + 1, keyEnd - 1)) return -1;
      const match = keyEnd - p - 2 === step.length && text.startsWith(step, p + 1);
      p = skipSpace(text, keyEnd);
      if (text.charCodeAt(p) !== 0x3a) return -1;
      p = skipSpace(text, p + 1);
      if (match) out[0] = out[1] = -1; // a later duplicate is the one that counts
      end = match ? walk(text, p, path, i + 1, out) : valueEnd(text, p);
    }
    if (end < 0) return -1;
    p = skipSpace(text, end);
    const d = text.charCodeAt(p);
    if (d === 0x5d || d === 0x7d) return p + 1;
    if (d !== 0x2c) return -1;
    p = skipSpace(text, p + 1);
  }
}
