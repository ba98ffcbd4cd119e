// The subject head's part of the fit (bench/router/fit.ts): a softmax over the labelled subjects
// (MMLU's 57), read from the encoding directly (one head per subject) or through a low-rank map
// (`rank` heads, then a rank × subjects matrix), supervised by the prompt's subject where the data
// gives one; each model has an offset per subject, weighed by that softmax in its logit. The head
// is shared by the ensemble's members, as the abilities are: its term is the same in each member's
// logit, so the mean of the logits keeps it as it is.
import { FEATURES } from '../../lib/router/encoder.js';
import { softmaxInPlace } from '../../lib/router/weights.js';

export interface SubjectOptions {
  rate: number;
  profileRate: number;
  l2: number;
  profileL2: number;
  /** weight of the subject's supervision (a cross-entropy) */
  weight: number;
}

const EPS = 1e-8;

export class SubjectFit {
  /** the heads' weights, FEATURES × heads */
  readonly w: Float64Array;
  private readonly gw: Float64Array;
  /** low rank only: heads × classes */
  readonly map: Float64Array | undefined;
  private readonly gmap: Float64Array | undefined;
  /** per model, an offset per class: M × classes */
  readonly offsets: Float64Array;
  private readonly goff: Float64Array;
  private readonly h: Float64Array;
  /** after forward(): the class probabilities */
  readonly p: Float64Array;
  private readonly gp: Float64Array;
  private readonly gh: Float64Array;

  /** `rank` 0: one head per class; else that many heads and a map. */
  constructor(readonly classes: number, readonly rank: number, models: number, random: () => number, private readonly o: SubjectOptions) {
    const heads = rank === 0 ? classes : rank;
    this.w = new Float64Array(FEATURES * heads);
    this.gw = new Float64Array(FEATURES * heads);
    if (rank > 0) {
      // the map starts small and random: at zero, the heads' gradients would stay zero
      this.map = Float64Array.from({ length: rank * classes }, () => (random() - 0.5) * 0.2);
      this.gmap = new Float64Array(rank * classes);
    }
    this.offsets = new Float64Array(models * classes);
    this.goff = new Float64Array(models * classes);
    this.h = new Float64Array(heads);
    this.p = new Float64Array(classes);
    this.gp = new Float64Array(classes);
    this.gh = new Float64Array(heads);
  }

  get heads(): number {
    return this.h.length;
  }

  /** The class probabilities of one prompt, from its encoding's slots and values [from, to). */
  forward(index: Int32Array, value: Float64Array, from: number, to: number): void {
    const H = this.heads;
    const h = this.h;
    h.fill(0);
    for (let i = from; i < to; i++) {
      const row = index[i]! * H;
      const x = value[i]!;
      for (let j = 0; j < H; j++) h[j] += x * this.w[row + j]!;
    }
    const p = this.p;
    const C = this.classes;
    if (this.map === undefined) p.set(h);
    else {
      p.fill(0);
      for (let r = 0; r < H; r++) for (let c = 0; c < C; c++) p[c] += h[r]! * this.map[r * C + c]!;
    }
    softmaxInPlace(p, 0, C);
    this.gp.fill(0);
  }

  /** Model m's subject term in its logit. */
  term(m: number): number {
    let z = 0;
    const at = m * this.classes;
    for (let c = 0; c < this.classes; c++) z += this.p[c]! * this.offsets[at + c]!;
    return z;
  }

  /** Model m's score gradient g (d loss / d logit): kept for the heads, and its offsets stepped. */
  step(m: number, g: number): void {
    const at = m * this.classes;
    for (let c = 0; c < this.classes; c++) {
      const k = at + c;
      this.gp[c] += g * this.offsets[k]!;
      const gk = g * this.p[c]! + this.o.profileL2 * this.offsets[k]!;
      this.goff[k] += gk * gk;
      this.offsets[k] -= (this.o.profileRate * gk) / Math.sqrt(this.goff[k]! + EPS);
    }
  }

  /** Back through the softmax (plus the subject's cross-entropy when `label` ≥ 0) into the map and the heads. */
  backward(index: Int32Array, value: Float64Array, from: number, to: number, label: number, weight: number): void {
    const C = this.classes;
    const p = this.p;
    const gp = this.gp;
    let mean = 0;
    for (let c = 0; c < C; c++) mean += p[c]! * gp[c]!;
    // gp becomes d loss / d class logit
    for (let c = 0; c < C; c++) gp[c] = p[c]! * (gp[c]! - mean) + (label >= 0 ? this.o.weight * weight * (p[c]! - (c === label ? 1 : 0)) : 0);
    const H = this.heads;
    const gh = this.gh;
    if (this.map === undefined) gh.set(gp);
    else {
      const map = this.map;
      const gmap = this.gmap!;
      for (let r = 0; r < H; r++) {
        let s = 0;
        for (let c = 0; c < C; c++) {
          const k = r * C + c;
          s += map[k]! * gp[c]!;
          const g = this.h[r]! * gp[c]! + this.o.l2 * map[k]!;
          gmap[k] += g * g;
          map[k] -= (this.o.rate * g) / Math.sqrt(gmap[k]! + EPS);
        }
        gh[r] = s;
      }
    }
    for (let i = from; i < to; i++) {
      const row = index[i]! * H;
      const x = value[i]!;
      for (let j = 0; j < H; j++) {
        const at = row + j;
        const g = x * gh[j]! + this.o.l2 * this.w[at]!;
        this.gw[at] += g * g;
        this.w[at] -= (this.o.rate * g) / Math.sqrt(this.gw[at]! + EPS);
      }
    }
  }
}
