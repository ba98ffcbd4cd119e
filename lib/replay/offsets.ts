// Where each SSE event of a recording starts, in bytes, so a failure can name the offset of the
// event that broke a rule whatever the chunking. Follows the dispatch rule of the SSE spec (and
// eventsource-parser): lines end in CRLF, LF or CR; a blank line ends a block; a block is an
// event only if it has a `data` field. A block's offset is that of its first line.

const LF = 0x0a;
const CR = 0x0d;

function isDataField(bytes: Buffer, start: number, end: number): boolean {
  // "data" alone, or "data:..."
  if (end - start < 4 || bytes.toString('latin1', start, start + 4) !== 'data') return false;
  return end - start === 4 || bytes[start + 4] === 0x3a;
}

/** Start offsets of the events an SSE parser dispatches from `bytes`, in order. */
export function sseEventOffsets(bytes: Buffer): number[] {
  const out: number[] = [];
  let i = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let blockStart = -1;
  let hasData = false;
  while (i < bytes.length) {
    let end = i;
    while (end < bytes.length && bytes[end] !== LF && bytes[end] !== CR) end++;
    if (end === bytes.length) break; // an unterminated last line never dispatches
    const next = bytes[end] === CR && bytes[end + 1] === LF ? end + 2 : end + 1;
    if (end === i) {
      if (hasData) out.push(blockStart);
      blockStart = -1;
      hasData = false;
    } else {
      if (blockStart === -1) blockStart = i;
      if (isDataField(bytes, i, end)) hasData = true;
    }
    i = next;
  }
  return out;
}

/** Offset of the first byte that is not JSON whitespace or a BOM (where a JSON body starts). */
export function bodyStart(bytes: Buffer): number {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b !== 0x20 && b !== 0x09 && b !== LF && b !== CR && b !== 0xef && b !== 0xbb && b !== 0xbf) return i;
  }
  return 0;
}
