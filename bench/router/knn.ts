// The kNN baseline: the same encoder's hashed n-grams, projected to 128 dimensions (a seeded random
// ±1 projection, which keeps cosine similarity), and per prompt the mean score of each model over the
// 20 most similar training prompts of the same dataset; the choice then follows the contract's rule
// (cheapest within the target of the best predicted quality), swept like the learned router's.
import { Encoder } from '../../lib/router/encoder.js';
import type { RouterInput } from '../../lib/router/router-api.js';
import { rng } from './fit.js';

const DIM = 128;
const K = 20;

export class Knn {
  private readonly encoder = new Encoder();
  private readonly sign: Int8Array;
  private readonly vectors: Float32Array;
  private readonly scores: Float64Array;
  private readonly query = new Float64Array(DIM);
  private readonly topSim = new Float64Array(K);
  private readonly topAt = new Int32Array(K);

  /** `scores[i * models + m]` of the training prompts `inputs`. */
  constructor(inputs: readonly RouterInput[], scores: Float64Array, private readonly models: number, seed = 7) {
    const random = rng(seed);
    this.sign = new Int8Array(1 << 15).map(() => (random() < 0.5 ? -1 : 1));
    this.vectors = new Float32Array(inputs.length * DIM);
    inputs.forEach((input, i) => {
      this.project(input);
      this.vectors.set(this.query, i * DIM);
    });
    this.scores = scores;
  }

  private project(input: RouterInput): void {
    const e = this.encoder;
    e.encode(input);
    const q = this.query;
    q.fill(0);
    for (let j = 0; j < e.count; j++) {
      const f = e.touched[j]!;
      const x = e.values[f]!;
      // each feature adds ±x to 4 of the 128 dimensions
      for (let r = 0; r < 4; r++) {
        const h = Math.imul(f + 1, 0x9e3779b1 + r * 0x85ebca6b) >>> 0;
        q[h % DIM] += x * this.sign[(h >>> 7) & 0x7fff]!;
      }
    }
    let norm = 0;
    for (let d = 0; d < DIM; d++) norm += q[d]! * q[d]!;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < DIM; d++) q[d]! /= norm;
  }

  /** Writes each model's predicted quality for `input` into out[offset .. offset + models). */
  predict(input: RouterInput, out: Float64Array, offset: number): void {
    this.project(input);
    const q = this.query;
    this.topSim.fill(-Infinity);
    this.topAt.fill(-1);
    const n = this.vectors.length / DIM;
    for (let i = 0; i < n; i++) {
      let s = 0;
      const base = i * DIM;
      for (let d = 0; d < DIM; d++) s += q[d]! * this.vectors[base + d]!;
      if (s <= this.topSim[K - 1]!) continue;
      let k = K - 1;
      while (k > 0 && this.topSim[k - 1]! < s) {
        this.topSim[k] = this.topSim[k - 1]!;
        this.topAt[k] = this.topAt[k - 1]!;
        k--;
      }
      this.topSim[k] = s;
      this.topAt[k] = i;
    }
    for (let m = 0; m < this.models; m++) {
      let sum = 0;
      for (let k = 0; k < K; k++) sum += this.scores[this.topAt[k]! * this.models + m]!;
      out[offset + m] = sum / K;
    }
  }
}
