// Sticky gateway-auto sessions through bin/gateway. Two models of equal quality profile, so the
// router wants the cheaper; prices change by SIGHUP reloads (pins outlive a reload) while one
// session goes on:
//   1. B is cheaper: the session starts on B;
//   2. B is dearer than A, but less so than the warm prompt cache B holds: the session stays
//      (a new session goes to A);
//   3. B is far dearer: the session stays inside a tool loop and with B's signed thinking in its
//      history, and otherwise moves to A (the saving exceeds the cache loss);
//   4. past `router.stickySeconds` the pin is forgotten.
// Responses sessions pin by `session_id`, or by `prompt_cache_key` without one (Codex).
import t from 'tap';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { sleep } from '../helpers/billing.js';
import { labConfig, labModel, logLine, messages, reload, responses, type Answer } from './lab.js';

const price = (input: number): { input: number; output: number; cacheRead: number } => ({ input, output: input * 5, cacheRead: input / 10 });
const models = (a: number, b: number): Record<string, unknown>[] => [labModel('lab/a', price(a), 20), labModel('lab/b', price(b), 20)];
const phase1 = labConfig(models(2, 1));
const configOf = (a: number, b: number, router: Record<string, unknown> = {}): Record<string, unknown> => ({ ...phase1.config, models: models(a, b), router });

let gw: RunningGateway;
t.before(async () => {
  gw = await startGateway(phase1.config);
});
t.teardown(() => gw?.stop());

// a long conversation start (~20k input tokens), so the warm cache is worth keeping
const prefix = { role: 'user', content: `Here is the log to study:\n${'GET /index.html 200 0.031s\n'.repeat(1500)}` };
const SESSION = { 'x-claude-code-session-id': 'sticky-sess-1' };
const tools = [{ name: 'grep', description: 'search the log', input_schema: { type: 'object', properties: { pattern: { type: 'string' } } } }];
const body = (messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({ model: 'gateway-auto', max_tokens: 100, messages, ...extra });

async function routing(a: Answer): Promise<Record<string, any>> {
  return ((await logLine(gw, a.reqId))?.routing ?? {}) as Record<string, any>;
}

let firstAnswer: Record<string, any>[] = [];
const followUp = (): unknown[] => [prefix, { role: 'assistant', content: 'All 1500 requests are GET /index.html.' }, { role: 'user', content: 'Which paths were slow?' }];

t.test('1. a new session goes to the cheaper model and is pinned there', async (t) => {
  const a = await messages(gw, body([prefix], { thinking: { type: 'adaptive' } }), SESSION);
  t.equal(a.status, 200, a.text.slice(0, 300));
  t.equal(a.routed, 'lab/b');
  t.match(await routing(a), { reason: 'router', choice: 'lab/b' });
  firstAnswer = a.body.content as Record<string, any>[];
  t.match(firstAnswer, [{ type: 'thinking', signature: String }, { type: 'text' }], 'lab/b signed its thinking');
  t.equal((await responses(gw, { model: 'gateway-auto', input: prefix.content, session_id: 'resp-sess-1' })).routed, 'lab/b');
  t.equal((await responses(gw, { model: 'gateway-auto', input: prefix.content, prompt_cache_key: 'codex-sess-1' })).routed, 'lab/b');
});

t.test('2. dearer, but by less than its warm cache is worth: the session stays', async (t) => {
  t.match(await reload(gw, configOf(2, 3)), { msg: 'config reloaded' });
  const fresh = await messages(gw, body(followUp()), { 'x-claude-code-session-id': 'sticky-sess-other' });
  t.equal(fresh.routed, 'lab/a', 'a new session goes to the now cheaper model');
  const a = await messages(gw, body(followUp()), SESSION);
  t.equal(a.status, 200, a.text.slice(0, 300));
  t.equal(a.routed, 'lab/b', 'the pinned session stays');
  const r = await routing(a);
  t.match(r, { reason: 'sticky', pinned: 'lab/b', savingUsd: Number, cacheLossUsd: Number });
  t.ok(r.savingUsd > 0 && r.savingUsd < r.cacheLossUsd, `A would save ${r.savingUsd} but lose a cache worth ${r.cacheLossUsd}`);
  const b = r.candidates.find((c: { id: string }) => c.id === 'lab/b');
  const aCost = r.candidates.find((c: { id: string }) => c.id === 'lab/a');
  t.ok(b.costUsd < aCost.costUsd, `the pinned model's expected cost counts its warm cache: ${b.costUsd} < ${aCost.costUsd}`);
  t.equal((await responses(gw, { model: 'gateway-auto', input: prefix.content, session_id: 'resp-sess-1' })).routed, 'lab/b', 'Responses session_id');
  t.equal((await responses(gw, { model: 'gateway-auto', input: prefix.content, prompt_cache_key: 'codex-sess-1' })).routed, 'lab/b', 'Responses prompt_cache_key');
});

t.test('3. far dearer: never inside a tool loop, never with signed thinking, otherwise the session moves', async (t) => {
  t.match(await reload(gw, configOf(2, 40)), { msg: 'config reloaded' });
  const loop = await messages(
    gw,
    body([prefix, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_sticky_1', name: 'grep', input: { pattern: 'slow' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_sticky_1', content: 'no match' }] }], { tools }),
    SESSION,
  );
  t.equal(loop.status, 200, loop.text.slice(0, 300));
  t.equal(loop.routed, 'lab/b', 'the tool result goes back to the model that called the tool');
  t.match(await routing(loop), { reason: 'tool-loop', choice: 'lab/a', pinned: 'lab/b' });

  const signed = await messages(gw, body([prefix, { role: 'assistant', content: firstAnswer }, { role: 'user', content: 'Which paths were slow?' }], { thinking: { type: 'adaptive' } }), SESSION);
  t.equal(signed.status, 200, `the provider accepted the signature: ${signed.text.slice(0, 300)}`);
  t.equal(signed.routed, 'lab/b', 'signed thinking stays with the model that signed it');
  t.match(await routing(signed), { reason: 'signed-thinking', pinned: 'lab/b' });

  const moved = await messages(gw, body(followUp()), SESSION);
  t.equal(moved.routed, 'lab/a', 'a plain turn moves');
  const r = await routing(moved);
  t.match(r, { reason: 'moved', choice: 'lab/a', pinned: 'lab/b' });
  t.ok(r.savingUsd > r.cacheLossUsd, `the saving ${r.savingUsd} exceeds the cache loss ${r.cacheLossUsd}`);
  const after = await messages(gw, body(followUp()), SESSION);
  t.match(await routing(after), { reason: 'sticky', pinned: 'lab/a' }, 'and is pinned to its new model');
});

t.test('4. a pin older than router.stickySeconds is forgotten', async (t) => {
  t.match(await reload(gw, configOf(2, 1, { stickySeconds: 1 })), { msg: 'config reloaded' });
  const kept = await messages(gw, body(followUp()), SESSION);
  t.equal(kept.routed, 'lab/a', 'within a second: still pinned, though lab/b is cheaper now (its cache is warm)');
  await sleep(1300);
  const later = await messages(gw, body(followUp()), SESSION);
  t.equal(later.routed, 'lab/b', 'later: routed afresh');
  t.match(await routing(later), { reason: 'router' });
  t.notOk((await routing(later)).pinned);
});
