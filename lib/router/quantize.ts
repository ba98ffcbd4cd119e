// How the router's head weights are stored in weights.json: int16 steps of one scale (the shipped
// default), or int8 steps of one scale per head (`bits: 8`, about 0.9 of the bytes per head and half
// the resident memory, which leaves room for more heads within the size budget of a few MB).
import { FEATURES } from './encoder.js';
import type { WeightsFile } from './weights.js';

/**
 * The weights as stored, not widened to float32: int16 steps of one `scale`, or int8 steps with
 * one scale per head (`scales`, the column's largest |weight| ÷ 127). Kept so, they take half (a
 * quarter) of float32's memory for the life of the process.
 */
export interface QuantizedWeights {
  q: Int16Array | Int8Array;
  scale: number;
  /** int8 only: one scale per head */
  scales?: Float64Array;
}

export function decodeWeights(file: WeightsFile): QuantizedWeights {
  const bytes = Buffer.from(file.weights, 'base64');
  if (file.bits === 8) {
    const scales = Float64Array.from(file.scales ?? []);
    if (bytes.byteLength !== FEATURES * file.heads || scales.length !== file.heads) throw new Error(`weights: ${bytes.byteLength} int8 values and ${scales.length} scales, expected ${FEATURES * file.heads} and ${file.heads}`);
    return { q: new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), scale: 1, scales };
  }
  // an Int16Array needs an even offset: a fresh decode of this size is its own aligned allocation
  const aligned = bytes.byteOffset % 2 === 0 ? bytes : Buffer.from(bytes);
  const q = new Int16Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >> 1);
  if (q.length !== FEATURES * file.heads || bytes.byteLength % 2 !== 0) throw new Error(`weights: ${bytes.byteLength / 2} values, expected ${FEATURES * file.heads}`);
  return { q, scale: file.scale };
}

/**
 * The weights as int16 steps of one scale (the largest |weight| ÷ 32767): half the bytes of
 * float32, so the five members' heads stay about 3 MB; a step is ≈ 1e-4, far below what moves a
 * prediction.
 */
export function encodeWeights(w: Float32Array): { weights: string; scale: number } {
  let max = 0;
  for (const x of w) if (Math.abs(x) > max) max = Math.abs(x);
  const scale = max === 0 ? 1 : max / 32767;
  const q = Int16Array.from(w, (x) => Math.round(x / scale));
  return { weights: Buffer.from(q.buffer, q.byteOffset, q.byteLength).toString('base64'), scale };
}

/**
 * The weights as int8 steps of one scale per head (`heads` columns per feature row): each head's
 * largest |weight| ÷ 127, so a head of small weights keeps its own resolution.
 */
export function encodeWeights8(w: Float32Array, heads: number): { bits: 8; weights: string; scale: number; scales: number[] } {
  const { q, scales } = int8Weights(w, heads);
  return { bits: 8, weights: Buffer.from(q.buffer, q.byteOffset, q.byteLength).toString('base64'), scale: 1, scales: Array.from(scales) };
}

/** The int8 steps and per-head scales encodeWeights8 writes, as the scorer reads them (cross-validation scores with these). */
export function int8Weights(w: Float32Array, heads: number): QuantizedWeights & { q: Int8Array; scales: Float64Array } {
  const max = new Float64Array(heads);
  for (let i = 0; i < w.length; i++) max[i % heads] = Math.max(max[i % heads]!, Math.abs(w[i]!));
  // float32 values, so the number written in the file is the one the scorer multiplies by
  const scales = Float64Array.from(max, (m) => Math.fround(m === 0 ? 1 : m / 127));
  const q = Int8Array.from(w, (x, i) => Math.round(x / scales[i % heads]!));
  return { q, scale: 1, scales };
}
