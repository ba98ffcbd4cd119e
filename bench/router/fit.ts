// The offline fit of the router's weights: AdaGrad over the training prompts in a seeded order,
// deterministic (same data, seed and options → the same bytes). Per prompt, the heads (difficulty
// and skill-mixture logits) are linear in the encoding; per model, an ability and per-skill offsets.
// Loss: the cross-entropy of every model's score under P = sigmoid(ability + mixture·skills −
// difficulty), plus a cross-entropy pulling the mixture toward the prompt's labelled skill.
import { prng } from '../../lib/replay/chunking.js';
import { Encoder, FEATURES } from '../../lib/router/encoder.js';
import type { QualityProfile, RouterInput } from '../../lib/router/router-api.js';
import { directSlots, sigmoid, softmaxInPlace } from '../../lib/router/weights.js';
import { SubjectFit } from './fit-subject.js';

export interface FitItem {
  input: RouterInput;
  /** the labelled skill's index */
  skill: number;
  /** [model index, score in 0..1] pairs */
  labels: readonly (readonly [number, number])[];
  /** the item's weight in the loss (small datasets weigh more per item) */
  weight: number;
  /** the item's labelled subject or task (dataset and domain), when the data gives one */
  group?: string;
  /** the item's class for the subject head, when it has one */
  subject?: number;
}

export interface FitOptions {
  seed: number;
  epochs: number;
  /** AdaGrad step for the heads' weights and for the profiles */
  rate: number;
  profileRate: number;
  /** L2 on the heads' weights (applied to the rows a prompt touches) and on the profiles */
  l2: number;
  profileL2: number;
  /** weight of the skill-mixture supervision */
  mixWeight: number;
  /** how many free factors follow the named skills, per member of the ensemble */
  factors: number;
  /** how much smaller datasets are up-weighted (0: every item weighs 1; 1: every dataset weighs the same) */
  balance: number;
  /** how many sets of heads the ensemble averages (1: no ensemble) */
  members: number;
  /**
   * how far each label is pulled toward its group's mean score for the model (0: not at all): the
   * subject's mean is a steadier target than one prompt's right-or-wrong
   */
  smooth: number;
  /** 1: a prompt with no subject or task label is grouped, for `smooth`, by its dataset and log2 of its length */
  smoothLength: number;
  /**
   * structural features read directly as profile dimensions: each model learns its own slope on
   * them (a per-model length slope), with no head in between
   */
  direct: string[];
  /** the subject head's heads (0: none; as many as the subjects or more: one per subject; fewer: a low-rank map) */
  subjectHeads: number;
  /** weight of the subject head's supervision */
  subjectWeight: number;
  /** AdaGrad step for the profiles' subject offsets (0: the profiles' own, `profileRate`) */
  subjectRate: number;
  /** 1: the prompts of the other datasets are a subject class of their own ("other") */
  subjectOther: number;
  /** how weights.json stores the heads: 16 (int16, one scale) or 8 (int8, one scale per head) */
  bits: number;
}

export interface FitResult {
  /** FEATURES × (the members' heads, then the subject head's) */
  weights: Float32Array;
  /** the heads per feature row */
  heads: number;
  /** the low-rank subject head's map (subject heads × classes) */
  subjectMap?: number[];
  profiles: QualityProfile[];
  /** mean score cross-entropy of the last epoch */
  loss: number;
}

/** the seeded generator for the shuffles (mulberry32, the one replay's random chunking uses) */
export const rng = prng;

interface Encoded {
  start: Int32Array;
  index: Int32Array;
  value: Float64Array;
}

function encodeAll(items: readonly FitItem[], direct: readonly number[] = []): Encoded & { direct: Float64Array } {
  const enc = new Encoder();
  const directValues = new Float64Array(items.length * direct.length);
  const start = new Int32Array(items.length + 1);
  const index: number[] = [];
  const value: number[] = [];
  items.forEach((item, i) => {
    enc.encode(item.input);
    // sorted, so the sums below run in one fixed order
    const slots = Array.from(enc.touched.subarray(0, enc.count)).sort((a, b) => a - b);
    for (const f of slots) {
      index.push(f);
      value.push(enc.values[f]!);
    }
    start[i + 1] = index.length;
    direct.forEach((slot, d) => (directValues[i * direct.length + d] = enc.values[slot]!));
  });
  return { start, index: Int32Array.from(index), value: Float64Array.from(value), direct: directValues };
}

/**
 * `skills` are the names of the profile offsets: the first `mixture` of them weigh by the prompt's
 * skill mixture (a softmax, supervised by the labelled skill), the rest by free factors (linear
 * heads, unsupervised: how much more a prompt asks of one model than of another beyond difficulty),
 * `o.factors` per member of the ensemble, member after member.
 *
 * The ensemble: `o.members` sets of heads, each trained on its own order of the prompts with its own
 * free factors, all sharing the models' ability and named-skill offsets; its prediction is the mean
 * of the members' logits. Since a logit is linear in the heads' outputs for a given profile, that
 * mean is one logit over the members' mean difficulty and mixture (and each member's factors ÷
 * members): a declared profile (ability and named skills) means the same to every member.
 */
export function fit(items: readonly FitItem[], models: readonly { name: string; prior: number }[], skills: readonly string[], mixture: number, o: FitOptions, classes = 0): FitResult {
  const S = Math.max(1, o.members);
  const F = o.factors;
  const K = skills.length; // mixture + S × F + D: the profile's offsets
  const Hm = 1 + mixture + F; // one member's heads: difficulty, mixture logits, its factors
  const M = models.length;
  const directSlotList = directSlots(o.direct);
  const D = directSlotList.length;
  const firstDirect = mixture + S * F + classes;
  const data = encodeAll(items, directSlotList);
  const labelsOf = smoothedLabels(items, M, o.smooth);
  // member s's heads: columns s·Hm … s·Hm + Hm − 1 of each feature's row (the layout weights.ts reads)
  const H = S * Hm;
  const w = new Float64Array(FEATURES * H);
  const gw = new Float64Array(FEATURES * H);
  const prior = Float64Array.from(models, (m) => Math.log(m.prior / (1 - m.prior)));
  const ability = Float64Array.from(prior);
  const ga = new Float64Array(M);
  const skill = new Float64Array(M * K);
  const random = rng(o.seed);
  // the free factors start small and random: at zero, their gradients would stay zero
  for (let m = 0; m < M; m++) for (let k = mixture; k < K; k++) skill[m * K + k] = (random() - 0.5) * 0.2;
  const sub = classes === 0 ? undefined : new SubjectFit(classes, o.subjectHeads >= classes ? 0 : o.subjectHeads, M, random, { rate: o.rate, profileRate: o.subjectRate > 0 ? o.subjectRate : o.profileRate, l2: o.l2, profileL2: o.profileL2, weight: o.subjectWeight });
  const gs = new Float64Array(M * K);
  const out = new Float64Array(Hm);
  const gOut = new Float64Array(Hm);
  const gMix = new Float64Array(Hm);
  // member s's offset j (0 … mixture + F − 1) is the profile's column col(s, j)
  const col = (s: number, j: number): number => (j < mixture ? j : mixture + s * F + (j - mixture));
  const Km = mixture + F;
  const order = Int32Array.from(items, (_, i) => i);
  const eps = 1e-8;
  let loss = 0;
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    loss = 0;
    let count = 0;
    for (let s = 0; s < S; s++) {
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        const t = order[i]!;
        order[i] = order[j]!;
        order[j] = t;
      }
      const base = s * Hm;
      for (const n of order) {
        const item = items[n]!;
        const from = data.start[n]!;
        const to = data.start[n + 1]!;
        out.fill(0);
        for (let p = from; p < to; p++) {
          const row = data.index[p]! * H + base;
          const x = data.value[p]!;
          for (let h = 0; h < Hm; h++) out[h] += x * w[row + h]!;
        }
        softmaxInPlace(out, 1, 1 + mixture);
        gOut.fill(0);
        gMix.fill(0);
        // the mixture's supervision: d(CE)/d(logit_k) = mix_k − [k = label]
        for (let k = 0; k < mixture; k++) gOut[1 + k] = o.mixWeight * (out[1 + k]! - (k === item.skill ? 1 : 0));
        const dv = n * D;
        sub?.forward(data.index, data.value, from, to);
        for (const [m, y] of labelsOf[n]!) {
          let z = ability[m]! - out[0]! + (sub === undefined ? 0 : sub.term(m));
          for (let j = 0; j < Km; j++) z += out[1 + j]! * skill[m * K + col(s, j)]!;
          for (let d = 0; d < D; d++) z += data.direct[dv + d]! * skill[m * K + firstDirect + d]!;
          const p = sigmoid(z);
          loss -= y * Math.log(p + 1e-12) + (1 - y) * Math.log(1 - p + 1e-12);
          count++;
          const g = (p - y) * item.weight;
          sub?.step(m, g);
          gOut[0] -= g;
          for (let j = 0; j < Km; j++) gMix[j] += g * skill[m * K + col(s, j)]!;
          const step = g + o.profileL2 * (ability[m]! - prior[m]!);
          ga[m] += step * step;
          ability[m] -= (o.profileRate * step) / Math.sqrt(ga[m]! + eps);
          for (let j = 0; j < Km; j++) {
            const at = m * K + col(s, j);
            const gk = g * out[1 + j]! + o.profileL2 * skill[at]!;
            gs[at] += gk * gk;
            skill[at] -= (o.profileRate * gk) / Math.sqrt(gs[at]! + eps);
          }
          for (let d = 0; d < D; d++) {
            const x = data.direct[dv + d]!;
            if (x === 0) continue;
            const at = m * K + firstDirect + d;
            const gk = g * x + o.profileL2 * skill[at]!;
            gs[at] += gk * gk;
            skill[at] -= (o.profileRate * gk) / Math.sqrt(gs[at]! + eps);
          }
        }
        sub?.backward(data.index, data.value, from, to, item.subject ?? -1, item.weight);
        // back through the softmax: d/dlogit_j = mix_j (gMix_j − Σ_k mix_k gMix_k)
        let mean = 0;
        for (let k = 0; k < mixture; k++) mean += out[1 + k]! * gMix[k]!;
        for (let k = 0; k < mixture; k++) gOut[1 + k] += out[1 + k]! * (gMix[k]! - mean);
        // a free factor is linear: its gradient is gMix itself
        for (let j = mixture; j < Km; j++) gOut[1 + j] += gMix[j]!;
        for (let p = from; p < to; p++) {
          const row = data.index[p]! * H + base;
          const x = data.value[p]!;
          for (let h = 0; h < Hm; h++) {
            const at = row + h;
            const g = x * gOut[h]! + o.l2 * w[at]!;
            gw[at] += g * g;
            w[at] -= (o.rate * g) / Math.sqrt(gw[at]! + eps);
          }
        }
      }
    }
    loss /= Math.max(1, count);
  }
  const profiles = models.map((_, m) => {
    const skills_: Record<string, number> = {};
    for (let k = 0; k < K; k++) skills_[skills[k]!] = round(skill[m * K + k]!);
    for (let c = 0; c < classes; c++) skills_[skills[mixture + S * F + c]!] = round(sub!.offsets[m * classes + c]!);
    return { ability: round(ability[m]!), skills: skills_ };
  });
  if (sub === undefined) return { weights: Float32Array.from(w), heads: H, profiles, loss };
  return { ...withSubject(w, H, sub), profiles, loss };
}

/** The members' heads and the subject head's side by side in each feature's row; the map rounded as written. */
function withSubject(w: Float64Array, H: number, sub: SubjectFit): Pick<FitResult, 'weights' | 'heads' | 'subjectMap'> {
  const Hs = sub.heads;
  const all = new Float32Array(FEATURES * (H + Hs));
  for (let f = 0; f < FEATURES; f++) {
    all.set(w.subarray(f * H, f * H + H), f * (H + Hs));
    all.set(sub.w.subarray(f * Hs, f * Hs + Hs), f * (H + Hs) + H);
  }
  if (sub.map !== undefined) sub.map.forEach((x, i) => (sub.map![i] = Math.round(x * 1e6) / 1e6));
  return { weights: all, heads: H + Hs, ...(sub.map !== undefined ? { subjectMap: Array.from(sub.map) } : {}) };
}

/** Each item's labels, pulled by `smooth` toward its group's mean score per model (over `items`). */
function smoothedLabels(items: readonly FitItem[], M: number, smooth: number): (readonly (readonly [number, number])[])[] {
  if (smooth === 0) return items.map((it) => it.labels);
  const sums = new Map<string, Float64Array>();
  for (const it of items) {
    if (it.group === undefined) continue;
    let acc = sums.get(it.group);
    if (acc === undefined) sums.set(it.group, (acc = new Float64Array(2 * M)));
    for (const [m, y] of it.labels) {
      acc[m] += y;
      acc[M + m] += 1;
    }
  }
  return items.map((it) => {
    const acc = it.group === undefined ? undefined : sums.get(it.group);
    if (acc === undefined) return it.labels;
    return it.labels.map(([m, y]) => [m, (1 - smooth) * y + (smooth * acc[m]!) / acc[M + m]!] as const);
  });
}

/** Profiles are written with 4 decimals: readable in weights.json, and exact on reload. */
function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
