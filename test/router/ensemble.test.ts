// The router as an ensemble: the shipped weights hold several members' heads, and a prediction is
// the mean of the members' logits for the same profile (so a declared profile means the same to
// every member). Checked on a hand-made two-member weights file whose heads read only the encoder's
// bias slot, where the expected probability can be worked out by hand; and the shipped file keeps
// the size budget of issue #13 (a few MB).
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { FEATURES, HASH_SIZE, STRUCTURAL } from '../../lib/router/encoder.js';
import { loadRouter, type RouterInput } from '../../lib/router/index.js';
import { encodeWeights, readWeightsFile, WEIGHTS_FORMAT, WEIGHTS_PATH } from '../../lib/router/weights.js';

const input: RouterInput = { turns: [{ role: 'user', text: 'What is 17 + 25?' }], tools: 0, effort: null, attachments: 0, inputTokens: 5 };
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

t.test('a prediction is the mean of the members’ logits', async (t) => {
  // two members, each: difficulty, mixture logits (math, code), one free factor
  const skills = ['math', 'code', 'factor-1', 'factor-2'];
  const perMember = 4;
  const w = new Float32Array(FEATURES * 2 * perMember);
  const bias = HASH_SIZE + STRUCTURAL.indexOf('bias');
  // member 1: difficulty 1, mixture all math (logits 2, 0), factor 1; member 2: difficulty 4, logits (0, 2), factor −2
  w.set([1, 2, 0, 1, 4, 0, 2, -2], bias * 2 * perMember);
  const dir = mkdtempSync(join(tmpdir(), 'router-ensemble-'));
  const path = join(dir, 'weights.json');
  writeFileSync(path, JSON.stringify({ format: WEIGHTS_FORMAT, hashBits: Math.log2(HASH_SIZE), structural: [...STRUCTURAL], skills, mixture: 2, members: 2, heads: 2 * perMember, ...encodeWeights(w), profiles: {}, training: {} }));
  const router = loadRouter(path);
  const profile = { ability: 2, skills: { math: 1, code: -1, 'factor-1': 0.5, 'factor-2': 0.25 } };
  const [got] = router.predict(input, [profile]);
  const mix = (a: number, b: number): [number, number] => [Math.exp(a) / (Math.exp(a) + Math.exp(b)), Math.exp(b) / (Math.exp(a) + Math.exp(b))];
  const [m1, c1] = mix(2, 0);
  const [m2, c2] = mix(0, 2);
  const z1 = 2 - 1 + m1 * 1 + c1 * -1 + 1 * 0.5;
  const z2 = 2 - 4 + m2 * 1 + c2 * -1 + -2 * 0.25;
  t.ok(Math.abs(got! - sigmoid((z1 + z2) / 2)) < 1e-4, `P = sigmoid(mean of logits) = ${sigmoid((z1 + z2) / 2)}, got ${got}`);
  t.ok(Math.abs(got! - (sigmoid(z1) + sigmoid(z2)) / 2) > 1e-3, 'which is not the mean of the probabilities');
  const [plain] = router.predict(input, [{ ability: 2 }]);
  t.ok(Math.abs(plain! - sigmoid(2 - 2.5)) < 1e-4, `a profile of ability only: sigmoid(ability − mean difficulty), got ${plain}`);
});

t.test('the shipped weights: an ensemble, within a few MB', async (t) => {
  const file = readWeightsFile(WEIGHTS_PATH);
  t.ok(file.members >= 2, `members: ${file.members}`);
  t.ok(statSync(WEIGHTS_PATH).size < 4 * 1024 * 1024, `lib/router/weights.json: ${statSync(WEIGHTS_PATH).size} bytes`);
});

t.test('a direct dimension: each model’s own slope on a structural feature, read with no head in between', async (t) => {
  // one member: difficulty, one mixture logit, no free factor; the last skill reads `log-chars` as it is
  const skills = ['math', 'slope:log-chars'];
  const w = new Float32Array(FEATURES * 2);
  const bias = HASH_SIZE + STRUCTURAL.indexOf('bias');
  w.set([1, 0], bias * 2);
  const dir = mkdtempSync(join(tmpdir(), 'router-direct-'));
  const path = join(dir, 'weights.json');
  writeFileSync(path, JSON.stringify({ format: WEIGHTS_FORMAT, hashBits: Math.log2(HASH_SIZE), structural: [...STRUCTURAL], skills, mixture: 1, members: 1, heads: 2, direct: ['log-chars'], ...encodeWeights(w), profiles: {}, training: {} }));
  const router = loadRouter(path);
  const logChars = Math.log1p(input.turns[0]!.text.length) / 10;
  const [flat, falling] = router.predict(input, [{ ability: 2 }, { ability: 2, skills: { 'slope:log-chars': -3 } }]);
  t.ok(Math.abs(flat! - sigmoid(2 - 1)) < 1e-4, `no slope: sigmoid(ability − difficulty), got ${flat}`);
  t.ok(Math.abs(falling! - sigmoid(2 - 1 - 3 * logChars)) < 1e-4, `slope −3: sigmoid(ability − difficulty − 3 × log-chars), got ${falling}`);
});
