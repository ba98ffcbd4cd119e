// `bin/gateway router choose` as a user runs it (decisions.md §15): JSON lines in, one
// {"id","model","ms"} line out per prompt, offline; the same choices on every run; the --target knob;
// a model added to MODELS.json by declaring its quality profile (no retraining); and the usage errors.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { runCommand } from '../helpers/run-bin.js';

const GATEWAY = join(ROOT, 'bin/gateway');
// about 15 runs of bin/gateway: on a loaded 2-core machine each start takes seconds
t.setTimeout(600_000);
const dir = mkdtempSync(join(tmpdir(), 'router-choose-'));

function modelsFile(name: string, models: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ dataset: 'hand-made', models }));
  return file;
}

// two learned models (by the names training saw) and one declared only by its profile
const MODELS = modelsFile('models.json', [
  { name: 'gpt-4-1106-preview', input_usd_per_mtok: null, output_usd_per_mtok: null, reference_price: { input_usd_per_mtok: 10, output_usd_per_mtok: 30 } },
  { name: 'mistralai/Mixtral-8x7B-Instruct-v0.1', input_usd_per_mtok: 0.6, output_usd_per_mtok: 0.6 },
]);
const PROMPTS = [
  { id: 'greeting', prompt: 'Hello! How are you today?' },
  { id: 'fact', prompt: 'What is the capital of France?\nA. Paris\nB. Lyon\nC. Nice\nD. Lille\nAnswer:' },
  { id: 'proof', prompt: 'Let G be a finite group of order p^2 for a prime p. Prove that G is abelian, and determine all such groups up to isomorphism.' },
  { id: 'math', prompt: 'A store sells pencils at 3 for $1.20 and pens at 2 for $3.50. Tom buys 15 pencils and 6 pens and pays with a $50 bill. After that he spends a third of the change on lunch. How much money does he have left?' },
  { id: 7, prompt: [{ role: 'user', content: 'Write a haiku about the sea.' }, { role: 'user', content: 'Now rewrite it as a limerick.' }] },
];
const STDIN = `${PROMPTS.map((p) => JSON.stringify(p)).join('\n')}\n`;

function lines(stdout: string): { id: unknown; model: string; ms: number }[] {
  return stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: unknown; model: string; ms: number });
}

t.test('one line per prompt: its id, a model of MODELS.json and the decision time', async (t) => {
  const r = await runCommand(GATEWAY, ['router', 'choose', '--models', MODELS], STDIN);
  t.equal(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  t.same(out.map((o) => o.id), PROMPTS.map((p) => p.id), 'ids in order, as given');
  for (const o of out) {
    t.ok(['gpt-4-1106-preview', 'mistralai/Mixtral-8x7B-Instruct-v0.1'].includes(o.model), `${String(o.id)}: ${o.model}`);
    t.ok(typeof o.ms === 'number' && o.ms >= 0, `${String(o.id)}: ms ${o.ms}`);
    t.same(Object.keys(o).sort(), ['id', 'model', 'ms']);
  }
});

t.test('the same choices on every run', async (t) => {
  const a = await runCommand(GATEWAY, ['router', 'choose', '--models', MODELS], STDIN);
  const b = await runCommand(GATEWAY, ['router', 'choose', '--models', MODELS], STDIN);
  t.same(lines(a.stdout).map((o) => o.model), lines(b.stdout).map((o) => o.model));
});

t.test('--target: 1 keeps the best predicted quality (the strongest), a low target the cheapest', async (t) => {
  const high = await runCommand(GATEWAY, ['router', 'choose', '--models', MODELS, '--target', '1'], STDIN);
  const low = await runCommand(GATEWAY, ['router', 'choose', '--models', MODELS, '--target=0.3'], STDIN);
  t.equal(high.code, 0, high.stderr);
  t.ok(lines(high.stdout).every((o) => o.model === 'gpt-4-1106-preview'), 'target 1: always the strongest');
  t.ok(lines(low.stdout).every((o) => o.model === 'mistralai/Mixtral-8x7B-Instruct-v0.1'), 'target 0.3: always the cheaper');
});

t.test('a model declared by its quality profile alone is chosen by that profile', async (t) => {
  const declared = (ability: number): string =>
    modelsFile(`declared-${ability}.json`, [
      { name: 'gpt-4-1106-preview', reference_price: { input_usd_per_mtok: 10, output_usd_per_mtok: 30 } },
      { name: 'acme/new-small', input_usd_per_mtok: 0.1, output_usd_per_mtok: 0.4, quality: { ability, skills: { math: 0.5 } } },
    ]);
  const strong = await runCommand(GATEWAY, ['router', 'choose', '--models', declared(6)], STDIN);
  t.equal(strong.code, 0, strong.stderr);
  t.ok(lines(strong.stdout).every((o) => o.model === 'acme/new-small'), 'a cheap model declared far abler is always chosen');
  const weak = await runCommand(GATEWAY, ['router', 'choose', '--models', declared(-4)], STDIN);
  t.ok(lines(weak.stdout).every((o) => o.model === 'gpt-4-1106-preview'), 'declared far weaker, never');
});

t.test('usage errors: exit 2 and one message naming the problem', async (t) => {
  const noModels = await runCommand(GATEWAY, ['router', 'choose'], STDIN);
  t.equal(noModels.code, 2);
  t.match(noModels.stderr, /needs --models/);
  const missing = await runCommand(GATEWAY, ['router', 'choose', '--models', join(dir, 'absent.json')], STDIN);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /absent\.json/);
  const unknown = modelsFile('unknown.json', [{ name: 'acme/mystery', input_usd_per_mtok: 1, output_usd_per_mtok: 2 }]);
  const noProfile = await runCommand(GATEWAY, ['router', 'choose', '--models', unknown], STDIN);
  t.equal(noProfile.code, 2);
  t.match(noProfile.stderr, /"acme\/mystery" has no quality profile/);
  const badTarget = await runCommand(GATEWAY, ['router', 'choose', '--models', MODELS, '--target', '1.5'], STDIN);
  t.equal(badTarget.code, 2);
  t.match(badTarget.stderr, /--target must be a number in \(0, 1\]/);
  const badLine = await runCommand(GATEWAY, ['router', 'choose', '--models', MODELS], `${JSON.stringify(PROMPTS[0])}\n{not json\n`);
  t.equal(badLine.code, 2);
  t.equal(lines(badLine.stdout).length, 1, 'the lines before the bad one were answered');
  t.match(badLine.stderr, /stdin line 2/);
  const help = await runCommand(GATEWAY, ['router', '--help']);
  t.equal(help.code, 0);
  t.match(help.stderr, /router choose --models MODELS\.json/);
});
