// The router contract (lib/router/router-api.ts) on hand-made profiles, through loadRouter(): what
// the route stage relies on — predicted quality grows with ability; decide() takes the cheapest
// candidate within the target of the best, ties to the higher quality then the smaller id; the same
// input gives the same decision; and decisions do not grow the heap.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { defaultQualityProfile, DEFAULT_QUALITY_PROFILES, loadRouter, type RouterInput } from '../../lib/router/index.js';
import { ROOT } from '../helpers/paths.js';

const input = (text: string, extra: Partial<RouterInput> = {}): RouterInput => ({ turns: [{ role: 'user', text }], tools: 0, effort: null, attachments: 0, inputTokens: Math.ceil(text.length / 4), ...extra });
const HARD = input('Let G be a finite group of order p^2 for a prime p. Prove that G is abelian, and classify all such groups up to isomorphism, step by step.');
const router = loadRouter();

t.test('predicted quality is a probability and grows with ability and with a skill the prompt needs', async (t) => {
  const q = router.predict(HARD, [{ ability: -2 }, { ability: 0 }, { ability: 2 }, { ability: 2, skills: { math: 1 } }]);
  t.ok(q.every((x) => x > 0 && x < 1), 'in (0, 1)');
  t.ok(q[0]! < q[1]! && q[1]! < q[2]!, `ability orders quality: ${Array.from(q).join(', ')}`);
  t.ok(q[3]! > q[2]!, 'a positive math offset helps on a math prompt');
  t.ok(router.skills.includes('math') && router.skills.includes('code'), `skills: ${router.skills.join(', ')}`);
});

t.test('decide: the cheapest candidate within the target of the best', async (t) => {
  const candidates = [
    { id: 'top', quality: { ability: 4 }, cost: 10 },
    { id: 'mid', quality: { ability: 2.5 }, cost: 3 },
    { id: 'low', quality: { ability: -3 }, cost: 0.1 },
  ];
  const [top, mid, low] = router.predict(HARD, candidates.map((c) => c.quality));
  const d = router.decide(HARD, candidates, 0.9);
  t.same(d.ranked.map((r) => r.id), ['top', 'mid', 'low'], 'ranked by predicted quality');
  t.same(d.ranked.map((r) => r.quality), [top, mid, low], 'with the predicted qualities');
  t.same(d.ranked.map((r) => r.cost), [10, 3, 0.1], 'and the costs given');
  const expected = low! >= 0.9 * top! ? 'low' : mid! >= 0.9 * top! ? 'mid' : 'top';
  t.equal(d.model, expected, `target 0.9 → ${expected}`);
  t.equal(router.decide(HARD, candidates, 1).model, 'top', 'target 1: the best');
  t.equal(router.decide(HARD, candidates, 0.01).model, 'low', 'a tiny target: the cheapest');
  t.equal(router.decide(HARD, candidates, 1.5).model, 'top', 'a target above 1 is taken as 1');
});

t.test('ties: equal cost goes to the higher quality, then to the smaller id', async (t) => {
  const same = { ability: 1 };
  const d = router.decide(HARD, [{ id: 'b', quality: same, cost: 1 }, { id: 'c', quality: { ability: 1.5 }, cost: 1 }, { id: 'a', quality: same, cost: 1 }], 0.5);
  t.equal(d.model, 'c', 'higher quality at the same cost');
  const tie = router.decide(HARD, [{ id: 'b', quality: same, cost: 1 }, { id: 'a', quality: same, cost: 1 }], 0.5);
  t.equal(tie.model, 'a', 'then the smaller id');
});

t.test('deterministic: the same input, the same decision, whatever came before', async (t) => {
  const candidates = [
    { id: 'anthropic/claude-opus-5.5', quality: defaultQualityProfile('anthropic/claude-opus-5.5')!, cost: 25 },
    { id: 'anthropic/claude-haiku-5.5', quality: defaultQualityProfile('anthropic/claude-haiku-5.5')!, cost: 5 },
  ];
  const first = router.decide(HARD, candidates, 0.95);
  router.decide(input('something else entirely, with code: function f() { return 1; }', { tools: 3, effort: 'high' }), candidates, 0.95);
  t.same(router.decide(HARD, candidates, 0.95), first);
});

t.test('default profiles: every built-in text model, stronger tiers abler', async (t) => {
  for (const id of ['anthropic/claude-opus-5.5', 'anthropic/claude-sonnet-5.5', 'anthropic/claude-haiku-5.5', 'anthropic/claude-opus-5', 'anthropic/claude-sonnet-5', 'anthropic/claude-fable-5', 'anthropic/claude-opus-4.8', 'openai/gpt-5', 'openai/gpt-5-mini']) {
    t.ok(DEFAULT_QUALITY_PROFILES[id], id);
  }
  const a = (id: string): number => defaultQualityProfile(id)!.ability;
  t.ok(a('anthropic/claude-opus-5.5') > a('anthropic/claude-sonnet-5.5') && a('anthropic/claude-sonnet-5.5') > a('anthropic/claude-haiku-5.5'));
  t.equal(defaultQualityProfile('acme/unknown'), undefined);
});

t.test('decisions do not grow the heap', async (t) => {
  // a child with --expose-gc: 200,000 decisions after a warm-up, heap measured after full collections
  const script = `
    const { loadRouter } = await import(${JSON.stringify(join(ROOT, 'dist/lib/router/index.js'))});
    const r = loadRouter();
    const input = { turns: [{ role: 'system', text: 'You are a coding assistant.' }, { role: 'user', text: 'Refactor this: function f(a) { return a.map(x => x * 2).filter(Boolean); } and explain why.' }], tools: 2, effort: 'medium', attachments: 1, inputTokens: 900 };
    const c = [{ id: 'a', quality: { ability: 2 }, cost: 3 }, { id: 'b', quality: { ability: 1, skills: { code: 0.5 } }, cost: 1 }];
    for (let i = 0; i < 20000; i++) r.decide(input, c, 0.95);
    globalThis.gc(); globalThis.gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200000; i++) r.decide(input, c, 0.95);
    globalThis.gc(); globalThis.gc();
    process.stdout.write(String(process.memoryUsage().heapUsed - before));
  `;
  const growth = Number(execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' }));
  t.ok(growth < 512 * 1024, `heap growth over 200,000 decisions: ${growth} bytes`);
});

t.test('any conversation gets a finite prediction: none, huge, non-Latin, tools and attachments', async (t) => {
  const profiles = [{ ability: 1 }, { ability: 2, skills: { code: 0.4, 'no-such-skill': 9 } }];
  const cases: [string, RouterInput][] = [
    ['no turns', { turns: [], tools: 0, effort: null, attachments: 0, inputTokens: 0 }],
    ['a 1 MB turn', input('x'.repeat(1 << 20))],
    ['CJK and emoji', input('日本語のテキスト 😀🚀 中文 한국어 — ñ ü ß', { effort: 'xhigh' })],
    [
      'a tool loop',
      {
        turns: [
          { role: 'system', text: 'You are a coding agent.' },
          { role: 'user', text: 'Fix the failing test.' },
          { role: 'assistant', text: 'run_tests {"path":"test/"}' },
          { role: 'tool', text: 'FAIL test/a.test.ts: expected 2, got 3' },
          { role: 'assistant', text: 'edit_file {"path":"src/a.ts"}' },
          { role: 'tool', text: 'ok' },
        ],
        tools: 12,
        effort: 'high',
        attachments: 2,
        inputTokens: 50_000,
      },
    ],
  ];
  for (const [name, c] of cases) {
    const q = router.predict(c, profiles);
    t.ok(q.every((x) => Number.isFinite(x) && x > 0 && x < 1), `${name}: ${Array.from(q).join(', ')}`);
  }
});
