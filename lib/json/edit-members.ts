// A native request body made from the client's bytes: the encoder builds the upstream body as a value
// (the client's object with some members replaced, removed or added), and this finds the top-level
// members whose value is no longer the client's own and edits only those in the bytes. Every other
// byte (the conversation, usually nearly all of the body) goes upstream as the client sent it,
// without re-serialising. A member is unchanged when its value is the very one parsed from the
// client's bytes (objects and arrays by reference: encoders keep the client's arrays when they have
// nothing to remove) or an equal primitive; anything else is written out with JSON.stringify.
import type { JsonObject } from '../chunks.js';
import { isAscii } from 'node:buffer';
import { byStart } from './edit-order.js';
import { rangeOf, toByteOffsets, type RawJson } from './splice.js';

interface Edit {
  start: number;
  end: number;
  text: string;
}

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function back(bytes: Buffer, at: number): number {
  while (at > 0 && SPACE.has(bytes[at - 1]!)) at--;
  return at;
}

function forward(bytes: Buffer, at: number): number {
  while (at < bytes.length && SPACE.has(bytes[at]!)) at++;
  return at;
}

/**
 * Where the member whose value starts at `valueStart` begins: its key's opening quote, found by
 * walking back over `:` and the key string. -1 on anything unexpected (the caller serialises).
 */
function keyStart(bytes: Buffer, valueStart: number): number {
  let at = back(bytes, valueStart);
  if (bytes[at - 1] !== 0x3a /* : */) return -1;
  at = back(bytes, at - 1);
  if (bytes[at - 1] !== 0x22 /* " */) return -1;
  // the opening quote: the first `"` before the closing one that no odd run of backslashes escapes
  for (let i = at - 2; i >= 0; i--) {
    if (bytes[i] !== 0x22) continue;
    let slashes = 0;
    while (i - 1 - slashes >= 0 && bytes[i - 1 - slashes] === 0x5c) slashes++;
    if (slashes % 2 === 0) return i;
  }
  return -1;
}

/** The bytes of one member with the comma that separates it from a neighbour; null when unexpected. */
function removal(bytes: Buffer, start: number, end: number): Edit | null {
  const key = keyStart(bytes, start);
  if (key < 0) return null;
  const before = back(bytes, key);
  if (bytes[before - 1] === 0x2c /* , */) return { start: before - 1, end, text: '' };
  if (bytes[before - 1] !== 0x7b /* { */) return null;
  // the first member: it takes the comma after it (the last member alone has none)
  const after = forward(bytes, end);
  return { start: key, end: bytes[after] === 0x2c ? after + 1 : end, text: '' };
}

/**
 * `raw` (the client's bytes of `client`) edited so that it holds the JSON value of `body`: changed
 * values replaced in place, dropped members removed, new members appended. Null when the bytes
 * cannot be edited safely (a member the parser did not record, an object left empty): the caller
 * serialises `body` instead.
 */
export function editedBody(raw: RawJson, client: JsonObject, body: JsonObject): Buffer | null {
  const edits: Edit[] = [];
  const removed: string[] = [];
  let added = '';
  let kept = 0;
  for (const key in client) {
    if (!Object.hasOwn(body, key)) {
      removed.push(key);
      continue;
    }
    kept++;
    const value = body[key]!;
    if (value === client[key]) continue;
    const range = rangeOf(raw, key);
    if (range === undefined) return null;
    edits.push({ start: range[0], end: range[1], text: JSON.stringify(value) });
  }
  for (const key in body) if (!Object.hasOwn(client, key)) added += `,${JSON.stringify(key)}:${JSON.stringify(body[key])}`;
  if (edits.length === 0 && removed.length === 0 && added === '') return raw.bytes;
  if (kept === 0) return null; // no member left to hang the others on: serialise
  const ranges: { start: number; end: number }[] = [];
  for (const key of removed) {
    const range = rangeOf(raw, key);
    if (range === undefined) return null;
    ranges.push({ start: range[0], end: range[1] });
  }
  const bytes = raw.bytes;
  if (!(raw.ascii ?? isAscii(bytes))) toByteOffsets(bytes, [...edits, ...ranges]);
  for (const r of ranges) {
    const edit = removal(bytes, r.start, r.end);
    if (edit === null) return null;
    edits.push(edit);
  }
  if (added !== '') {
    const close = back(bytes, bytes.length);
    if (bytes[close - 1] !== 0x7d /* } */) return null;
    edits.push({ start: close - 1, end: close - 1, text: added });
  }
  byStart(edits);
  // one buffer of the edited size, written piece by piece: no slice object per piece, no Buffer per text
  let size = bytes.length;
  let at = 0;
  for (const e of edits) {
    if (e.start < at) return null; // overlapping edits: never expected, never risked
    size += (e.text === '' ? 0 : Buffer.byteLength(e.text)) - (e.end - e.start);
    at = e.end;
  }
  const out = Buffer.allocUnsafe(size);
  let w = 0;
  at = 0;
  for (const e of edits) {
    w += bytes.copy(out, w, at, e.start);
    if (e.text !== '') w += out.write(e.text, w);
    at = e.end;
  }
  bytes.copy(out, w, at);
  return out;
}
