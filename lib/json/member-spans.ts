// Where the members of a JSON object's text lie, for text already known to be valid JSON (a parsed
// upstream answer): a native answer is written to the client as the upstream's text with a few
// members spliced in (lib/dialects/*/through-json.ts, member-edits.ts), and these are the places. One
// pass that jumps over strings with indexOf (an answer's bulk is its text), so it costs far less than
// a parse. Anything unexpected gives null (the caller re-encodes).

/** One member: where its key's opening quote, its value and the end of its value lie. */
export type MemberSpan = readonly [key: number, value: number, end: number];

export interface MemberSpans {
  /** each key → its span, in UTF-16 units of the text */
  members: Map<string, MemberSpan>;
  /** where the object's closing `}` lies */
  close: number;
  /** the object on the `path` asked for, one level down (see memberSpans) */
  inner?: MemberSpans;
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
  const members = new Map<string, MemberSpan>();
  const found: { inner?: MemberSpans } = {};
  const next = path.length > 0 ? path[0] : undefined;
  const rest = path.length > 1 ? path.slice(1) : [];
  let at = skipSpace(text, from);
  if (text.charCodeAt(at) !== 0x7b) return null;
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === 0x7d) return { members, close: at };
  for (;;) {
    if (text.charCodeAt(at) !== 0x22) return null;
    const keyAt = at;
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return null;
    const raw = text.slice(at + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(text.slice(at, keyEnd)) as string) : raw;
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== 0x3a) return null;
    const start = skipSpace(text, at + 1);
    const end = key === next ? innerEnd(text, start, rest, found) : valueEnd(text, start);
    if (end < 0) return null;
    members.set(key, [keyAt, start, end]);
    at = skipSpace(text, end);
    const c = text.charCodeAt(at);
    if (c === 0x7d) return found.inner === undefined ? { members, close: at } : { members, close: at, inner: found.inner };
    if (c !== 0x2c) return null;
    at = skipSpace(text, at + 1);
  }
}

/** Where each element of the JSON array whose `[` is at `at` starts; null on anything unexpected. */
export function elementStarts(text: string, at: number): number[] | null {
  if (text.charCodeAt(at) !== 0x5b) return null;
  const starts: number[] = [];
  let i = skipSpace(text, at + 1);
  if (text.charCodeAt(i) === 0x5d) return starts;
  for (;;) {
    starts.push(i);
    const end = valueEnd(text, i);
    if (end < 0) return null;
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 0x5d) return starts;
    if (c !== 0x2c) return null;
    i = skipSpace(text, i + 1);
  }
}
