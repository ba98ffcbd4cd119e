// The two optional parts of weights.json that a training option writes: int8 heads with one scale
// per head (`bits: 8`), and a subject head (a softmax over subjects, each model with an offset per
// subject, read from its own heads directly or through a low-rank map). Checked on hand-made
// one-member files whose heads read only the encoder's bias slot, where the expected probability
// can be worked out by hand.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { FEATURES, HASH_SIZE, STRUCTURAL } from '../../lib/router/encoder.js';
import { loadRouter, type RouterInput } from '../../lib/router/index.js';
import { encodeWeights, encodeWeights8, WEIGHTS_FORMAT } from '../../lib/router/weights.js';

const input: RouterInput = { turns: [{ role: 'user', text: 'Which organ produces insulin?' }], tools: 0, effort: null, attachments: 0, inputTokens: 7 };
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
const bias = HASH_SIZE + STRUCTURAL.indexOf('bias');

function write(name: string, file: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), `router-${name}-`)), 'weights.json');
  writeFileSync(path, JSON.stringify({ format: WEIGHTS_FORMAT, hashBits: Math.log2(HASH_SIZE), structural: [...STRUCTURAL], members: 1, profiles: {}, training: {}, ...file }));
  return path;
}

t.test('int8 heads, one scale per head: each head keeps its own resolution', async (t) => {
  // one member: difficulty, one mixture logit, one free factor; the factor's head is 1000× smaller
  const w = new Float32Array(FEATURES * 3);
  w.set([1.5, 0, 0.002], bias * 3);
  const file = { skills: ['math', 'factor-1'], mixture: 1, heads: 3 };
  const p8 = write('int8', { ...file, ...encodeWeights8(w, 3) });
  const profile = { ability: 1, skills: { 'factor-1': 500 } };
  const [got8] = loadRouter(p8).predict(input, [profile]);
  const want = sigmoid(1 - 1.5 + 0.002 * 500);
  t.ok(Math.abs(got8! - want) < 1e-3, `int8: sigmoid(ability − difficulty + factor × offset) = ${want}, got ${got8}`);
  t.equal(Buffer.from(encodeWeights8(w, 3).weights, 'base64').length, FEATURES * 3, 'one byte a weight');
});

t.test('a subject head: the subjects’ softmax weighs each model’s subject offsets', async (t) => {
  const skills = ['knowledge', 'subject:anatomy', 'subject:law', 'subject:virology'];
  const anatomy = { ability: 0, skills: { 'subject:anatomy': 2, 'subject:law': -1 } };
  const soft = (l: number[]): number[] => l.map((x) => Math.exp(x) / l.reduce((a, y) => a + Math.exp(y), 0));
  // one head per subject: logits 2, 0, 1 on the bias slot; the member's heads: difficulty 0.5, one mixture logit
  const direct = new Float32Array(FEATURES * 5);
  direct.set([0.5, 0, 2, 0, 1], bias * 5);
  const full = write('subject', { skills, mixture: 1, heads: 5, subjects: ['anatomy', 'law', 'virology'], subjectHeads: 3, ...encodeWeights(direct) });
  const [a, b] = soft([2, 0, 1]);
  const [got, none] = loadRouter(full).predict(input, [anatomy, { ability: 0 }]);
  t.ok(Math.abs(got! - sigmoid(-0.5 + 2 * a! - b!)) < 1e-4, `sigmoid(ability − difficulty + Σ P(subject) × offset), got ${got}`);
  t.ok(Math.abs(none! - sigmoid(-0.5)) < 1e-4, `a profile without subject offsets is not moved, got ${none}`);
  // low rank: two heads (1, −1) and a 2 × 3 map giving the logits 1·(1, 0, 2) − 1·(0, 1, 1) = (1, −1, 1)
  const low = new Float32Array(FEATURES * 4);
  low.set([0.5, 0, 1, -1], bias * 4);
  const lowRank = write('subject-rank', { skills, mixture: 1, heads: 4, subjects: ['anatomy', 'law', 'virology'], subjectHeads: 2, subjectMap: [1, 0, 2, 0, 1, 1], ...encodeWeights8(low, 4) });
  const [a2, b2] = soft([1, -1, 1]);
  const [got2] = loadRouter(lowRank).predict(input, [anatomy]);
  t.ok(Math.abs(got2! - sigmoid(-0.5 + 2 * a2! - b2!)) < 1e-3, `through the map: sigmoid(−0.5 + 2 P(anatomy) − P(law)) = ${sigmoid(-0.5 + 2 * a2! - b2!)}, got ${got2}`);
});
