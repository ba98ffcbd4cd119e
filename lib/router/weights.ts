// The shipped weights (lib/router/weights.json, written by bench/router/train.ts) and the scorer that
// reads them: per prompt, a difficulty and a mixture over the skills, both linear in the encoding;
// per model, its QualityProfile. P(good answer) = sigmoid(ability + Σ_k mixture_k · skills_k − difficulty),
// item-response style, so a new model needs only its profile.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Encoder, HASH_BITS, HASH_SIZE, STRUCTURAL } from './encoder.js';
import type { QuantizedWeights } from './quantize.js';
import type { QualityProfile, RouterInput } from './router-api.js';

export { decodeWeights, encodeWeights, encodeWeights8, int8Weights, type QuantizedWeights } from './quantize.js';

export const WEIGHTS_FORMAT = 'gateway-router-irt-v2';

/** weights.json as written by the training script. */
export interface WeightsFile {
  format: string;
  hashBits: number;
  structural: string[];
  skills: string[];
  /** the first `mixture` skills weigh by the prompt's skill mixture (a softmax), the rest by free factors */
  mixture: number;
  /**
   * the ensemble's members: each has its own heads (a difficulty, the mixture logits and its own
   * free factors, `skills` after the named ones, member after member); the prediction is the mean
   * of the members' logits
   */
  members: number;
  /** heads per feature, all members' (members × (1 + mixture + factors per member)) */
  heads: number;
  /**
   * structural features read as they are as the last profile dimensions (`skills` ends with one
   * name per feature): each model's offset there is its own slope on that feature; absent: none
   */
  direct?: string[];
  /** FEATURES × heads int16 little-endian, base64; a weight is its int16 × `scale` (with `bits: 8`: int8 × its head's `scales`) */
  weights: string;
  scale: number;
  bits?: 8;
  scales?: number[];
  /**
   * a subject head (absent: none): the last `subjectHeads` heads give a softmax over these classes
   * (`skills` names them `subject:<class>`, after the free factors), directly (as many heads as
   * classes) or through `subjectMap` (subjectHeads × classes, row after row: a low-rank head)
   */
  subjects?: string[];
  subjectHeads?: number;
  subjectMap?: number[];
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

/**
 * Encoder + linear heads: what a prompt looks like to every model (its difficulty and skill mixture).
 * With an ensemble, the members' outputs are averaged into one [difficulty, mixture, factors]: a
 * logit is linear in them for a given profile, so that is the mean of the members' logits.
 */
export class PromptScorer {
  readonly encoder = new Encoder();
  /** after score(): [difficulty, mixture_1..K (softmax-ed), every member's factors ÷ members] */
  readonly out: Float64Array;
  /** every member's raw head outputs */
  private readonly raw: Float64Array;
  private readonly perMember: number;
  /** the subject head's class probabilities (scratch) */
  private readonly subjectP: Float64Array;

  constructor(
    readonly skills: readonly string[],
    private readonly mixture: number,
    /** float32 weights (training, cross-validation) or the shipped int16 steps */
    private readonly w: Float32Array | QuantizedWeights,
    private readonly heads: number,
    private readonly members = 1,
    /** the encoder slots read directly as the last `direct.length` dimensions */
    private readonly direct: readonly number[] = [],
    /** the subject head, read from the last `subject.heads` heads */
    private readonly subject: SubjectHead = { classes: 0, heads: 0 },
  ) {
    this.out = new Float64Array(1 + skills.length);
    this.raw = new Float64Array(heads);
    this.perMember = (heads - subject.heads) / members;
    this.subjectP = new Float64Array(subject.classes);
  }

  score(input: RouterInput): Float64Array {
    const enc = this.encoder;
    enc.encode(input);
    const raw = this.raw;
    const h = this.heads;
    raw.fill(0);
    const w = this.w;
    if (w instanceof Float32Array) {
      for (let i = 0; i < enc.count; i++) {
        const f = enc.touched[i]!;
        const x = enc.values[f]!;
        const row = f * h;
        for (let j = 0; j < h; j++) raw[j] += x * w[row + j]!;
      }
    } else if (w.scales !== undefined) {
      const { q, scales } = w;
      for (let i = 0; i < enc.count; i++) {
        const f = enc.touched[i]!;
        const x = enc.values[f]!;
        const row = f * h;
        for (let j = 0; j < h; j++) raw[j] += x * q[row + j]!;
      }
      for (let j = 0; j < h; j++) raw[j] *= scales[j]!;
    } else {
      const { q, scale } = w;
      for (let i = 0; i < enc.count; i++) {
        const f = enc.touched[i]!;
        const x = enc.values[f]!;
        const row = f * h;
        // the float32 weight a Float32Array would hold (Math.fround rounds as its store does)
        for (let j = 0; j < h; j++) raw[j] += x * Math.fround(q[row + j]! * scale);
      }
    }
    const out = this.out;
    out.fill(0);
    const S = this.members;
    const Hm = this.perMember;
    const named = 1 + this.mixture;
    const factors = Hm - named;
    for (let s = 0; s < S; s++) {
      const base = s * Hm;
      softmaxInPlace(raw, base + 1, base + named);
      for (let j = 0; j < named; j++) out[j] += raw[base + j]! / S;
      for (let j = 0; j < factors; j++) out[named + s * factors + j] = raw[base + named + j]! / S;
    }
    if (this.subject.classes > 0) this.scoreSubject(raw, S * Hm, named + S * factors);
    const first = out.length - this.direct.length;
    for (let d = 0; d < this.direct.length; d++) out[first + d] = enc.values[this.direct[d]!]!;
    return out;
  }

  /** The subject head's softmax, from its heads at raw[from…], into out[at…]. */
  private scoreSubject(raw: Float64Array, from: number, at: number): void {
    const { classes, heads, map } = this.subject;
    const p = this.subjectP;
    if (map === undefined) for (let c = 0; c < classes; c++) p[c] = raw[from + c]!;
    else {
      p.fill(0);
      for (let r = 0; r < heads; r++) {
        const h = raw[from + r]!;
        for (let c = 0; c < classes; c++) p[c] += h * map[r * classes + c]!;
      }
    }
    softmaxInPlace(p, 0, classes);
    this.out.set(p, at);
  }

  /** P(good answer) of one profile for the prompt last scored. */
  quality(profile: QualityProfile): number {
    return qualityOf(this.out, this.skills, profile);
  }
}

/** A subject head: a softmax over `classes`, from `heads` heads directly or through `map` (heads × classes). */
export interface SubjectHead {
  classes: number;
  heads: number;
  map?: Float64Array;
}

/** A weights file's subject head. */
export function subjectHead(file: WeightsFile): SubjectHead {
  const classes = file.subjects?.length ?? 0;
  return { classes, heads: file.subjectHeads ?? 0, ...(file.subjectMap !== undefined ? { map: Float64Array.from(file.subjectMap) } : {}) };
}

/** The encoder slots of a weights file's direct features. */
export function directSlots(names: readonly string[] = []): number[] {
  return names.map((name) => {
    const i = (STRUCTURAL as readonly string[]).indexOf(name);
    if (i < 0) throw new Error(`weights: no structural feature ${name}`);
    return HASH_SIZE + i;
  });
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
