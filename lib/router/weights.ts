// The shipped weights (lib/router/weights.json, written by bench/router/train.ts) and the scorer that
// reads them: per prompt, a difficulty and a mixture over the skills, both linear in the encoding;
// per model, its QualityProfile. P(good answer) = sigmoid(ability + Σ_k mixture_k · skills_k − difficulty),
// item-response style, so a new model needs only its profile.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Encoder, FEATURES, HASH_BITS, STRUCTURAL } from './encoder.js';
import type { QualityProfile, RouterInput } from './router-api.js';

export const WEIGHTS_FORMAT = 'gateway-router-irt-v1';

/** weights.json as written by the training script. */
export interface WeightsFile {
  format: string;
  hashBits: number;
  structural: string[];
  skills: string[];
  /** the first `mixture` skills weigh by the prompt's skill mixture (a softmax), the rest by free factors */
  mixture: number;
  /** heads per feature: the difficulty, then one mixture logit per skill */
  heads: number;
  /** FEATURES × heads float32 little-endian, base64 */
  weights: string;
  /** the learned profiles of the models in the training data, by the data's model names */
  profiles: Record<string, QualityProfile>;
  /** how the weights were made (seed, hyper-parameters, data hashes) */
  training: Record<string, unknown>;
}

export const WEIGHTS_PATH = fileURLToPath(new URL('./weights.json', import.meta.url));

export function readWeightsFile(path: string = WEIGHTS_PATH): WeightsFile {
  const file = JSON.parse(readFileSync(path, 'utf8')) as WeightsFile;
  if (file.format !== WEIGHTS_FORMAT || file.hashBits !== HASH_BITS || file.structural.join() !== STRUCTURAL.join()) {
    throw new Error(`${path}: weights for another encoder (format ${file.format}); retrain with bench/router/train`);
  }
  return file;
}

export function decodeWeights(file: WeightsFile): Float32Array {
  const bytes = Buffer.from(file.weights, 'base64');
  const w = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  if (w.length !== FEATURES * file.heads) throw new Error(`weights: ${w.length} values, expected ${FEATURES * file.heads}`);
  return w;
}

export function encodeWeights(w: Float32Array): string {
  return Buffer.from(w.buffer, w.byteOffset, w.byteLength).toString('base64');
}

/** Encoder + linear heads: what a prompt looks like to every model (its difficulty and skill mixture). */
export class PromptScorer {
  readonly encoder = new Encoder();
  /** after score(): [difficulty, mixture_1..K (softmax-ed), factors...] */
  readonly out: Float64Array;

  constructor(
    readonly skills: readonly string[],
    private readonly mixture: number,
    private readonly w: Float32Array,
    private readonly heads: number,
  ) {
    this.out = new Float64Array(heads);
  }

  score(input: RouterInput): Float64Array {
    const enc = this.encoder;
    enc.encode(input);
    const out = this.out;
    const h = this.heads;
    out.fill(0);
    for (let i = 0; i < enc.count; i++) {
      const f = enc.touched[i]!;
      const x = enc.values[f]!;
      const row = f * h;
      for (let j = 0; j < h; j++) out[j] += x * this.w[row + j]!;
    }
    softmaxInPlace(out, 1, 1 + this.mixture);
    return out;
  }

  /** P(good answer) of one profile for the prompt last scored. */
  quality(profile: QualityProfile): number {
    return qualityOf(this.out, this.skills, profile);
  }
}

export function softmaxInPlace(a: Float64Array, from: number, to: number): void {
  let max = -Infinity;
  for (let j = from; j < to; j++) if (a[j]! > max) max = a[j]!;
  let sum = 0;
  for (let j = from; j < to; j++) {
    const e = Math.exp(a[j]! - max);
    a[j] = e;
    sum += e;
  }
  for (let j = from; j < to; j++) a[j]! /= sum;
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** P(good) from a prompt's [difficulty, mixture..., factors...] and a profile. */
export function qualityOf(out: Float64Array, skills: readonly string[], profile: QualityProfile): number {
  let z = profile.ability - out[0]!;
  const s = profile.skills;
  if (s !== undefined) {
    for (let k = 0; k < skills.length; k++) {
      const v = s[skills[k]!];
      if (v !== undefined) z += out[k + 1]! * v;
    }
  }
  return sigmoid(z);
}
