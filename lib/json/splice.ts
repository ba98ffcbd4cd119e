// Replace a few top-level member values in the bytes of a JSON object, leaving every other byte as
// the client sent it: a native request is forwarded without re-serialising (and re-encoding) a
// body that may be hundreds of KB when only its `model` changes. The ranges come from the strict
// parser (`StrictParseOptions.topLevel`), in UTF-16 code units of the decoded text.
import { isAscii } from 'node:buffer';

/** The raw body of a request and where its top-level member values lie. */
export interface RawJson {
  bytes: Buffer;
  members: Map<string, [number, number]>;
}

/**
 * `bytes` with the value of each top-level member named in `replace` swapped for the given JSON
 * text. Null when a member to replace is not in the body (the caller serialises instead).
 */
export function spliceTopLevel(raw: RawJson, replace: Readonly<Record<string, string>>): Buffer | null {
  const edits: { start: number; end: number; text: string }[] = [];
  for (const key in replace) {
    const range = raw.members.get(key);
    if (range === undefined) return null;
    edits.push({ start: range[0], end: range[1], text: replace[key]! });
  }
  edits.sort((a, b) => a.start - b.start);
  const bytes = raw.bytes;
  if (!isAscii(bytes)) toByteOffsets(bytes, edits);
  const parts: Buffer[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(bytes.subarray(at, e.start), Buffer.from(e.text));
    at = e.end;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}

/** UTF-16 offsets → byte offsets, in one walk over the UTF-8 bytes up to the last offset needed. */
export function toByteOffsets(bytes: Buffer, edits: { start: number; end: number }[]): void {
  const wanted: { edit: { start: number; end: number }; field: 'start' | 'end'; unit: number }[] = [];
  for (const edit of edits) wanted.push({ edit, field: 'start', unit: edit.start }, { edit, field: 'end', unit: edit.end });
  wanted.sort((a, b) => a.unit - b.unit);
  let units = 0;
  let w = 0;
  for (let i = 0; i <= bytes.length && w < wanted.length; i++) {
    const b = i < bytes.length ? bytes[i]! : 0;
    if (i < bytes.length && (b & 0xc0) === 0x80) continue; // inside a code point: no offset falls here
    // byte i starts a code point (or is the end): `units` UTF-16 units lie before it
    while (w < wanted.length && wanted[w]!.unit === units) {
      const x = wanted[w++]!;
      x.edit[x.field] = i;
    }
    units += b >= 0xf0 ? 2 : 1; // a 4-byte code point is two UTF-16 units
  }
}
