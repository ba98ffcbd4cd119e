// How replay feeds a recording: whole, in chunks of N bytes, or in seeded random sizes (the same
// sizes on every run for one seed), so a decoder bug that depends on where a read ends shows up
// on demand and can be reproduced.

export type ChunkSize = number | 'random';

/** mulberry32: a tiny seeded PRNG, so "random" chunkings are the same on every run */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `bytes` cut into pieces: `undefined` → one piece; N → N bytes each (the last may be shorter);
 * 'random' → mostly tiny pieces (1-8 bytes) mixed with larger ones (1-300), from `seed`.
 */
export function chunkBytes(bytes: Buffer, size: ChunkSize | undefined, seed = 1): Buffer[] {
  if (size === undefined || bytes.length === 0) return [bytes];
  const out: Buffer[] = [];
  if (size !== 'random') {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
    for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
    return out;
  }
  const rand = prng(seed);
  for (let i = 0; i < bytes.length; ) {
    const piece = 1 + Math.floor(rand() * (rand() < 0.5 ? 8 : 300));
    out.push(bytes.subarray(i, i + piece));
    i += piece;
  }
  return out;
}
