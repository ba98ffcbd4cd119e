// Codex 0.169.0 (`codex exec`) against bin/gateway, inside a loopback-only network namespace, with
// the simulated provider behind the gateway, through a Claude model (Anthropic Messages deployment)
// and a Chat Completions deployment. Codex offers its own `apply_patch` (a custom tool with its
// patch grammar) because its model catalog says so (codex.ts `catalogEntry`); the demo model calls
// it with a patch that adds gateway-patch-ok.txt; Codex applies it, sends the output back, and the
// demo model answers `Tool result received: …`, which `codex exec` prints.
//
// Run by `npm run test:clients` (which sets GATEWAY_CLIENT_TIER=1; `.ci/run` runs it). Codex is
// installed into .cache/clients/codex on first use. When it cannot be installed or no namespace can
// be made, it fails under CI (CI=true) and elsewhere skips with a banner on stderr saying why.
import t from 'tap';
import { DEMO_PATCH, PATCH_FILE, PATCH_LINE } from '../../lib/sim/demo.js';
import { netnsProblem, tierVerdict, type SimCall } from './claude-code.js';
import { CODEX_VERSION, ensureCodex, runScenario, type RunResult } from './codex.js';

type Obj = Record<string, unknown>;

const PROMPT = `Create the file ${PATCH_FILE} with apply_patch.`;

function unavailable(): string | null {
  if (process.env.GATEWAY_CLIENT_TIER !== '1') return 'the Codex tier runs with `npm run test:clients`';
  const ns = netnsProblem();
  if (ns) return ns;
  const inst = ensureCodex();
  t.comment(`codex ${CODEX_VERSION}: ${inst.bin ?? 'unavailable'} (${inst.installed ? `installed in ${inst.ms} ms` : 'cached'})`);
  if (!inst.bin) return inst.reason ?? 'no binary';
  bin = inst.bin;
  return null;
}

let bin = '';
const why = unavailable();
const verdict = tierVerdict(why, process.env);
if (verdict === 'fail') {
  t.fail(`the Codex tier must run under CI (CI=${process.env.CI}), and cannot: ${why}`);
} else if (verdict === 'skip-loudly') {
  const banner = `CODEX CLIENT TIER SKIPPED: nothing was tested, because ${why}. Under CI (CI=true) this is a failure.`;
  console.error(`\n${'!'.repeat(banner.length)}\n${banner}\n${'!'.repeat(banner.length)}\n`);
  t.plan(0, why!);
} else if (verdict === 'skip') {
  t.plan(0, why!);
}

/** The tools an upstream call offered, by name, whatever its dialect. */
function toolNames(call: SimCall | undefined): string[] {
  return ((call?.body.tools ?? []) as Obj[]).map((x) => String((x.function as Obj | undefined)?.name ?? x.name));
}

/* eslint-disable @typescript-eslint/no-explicit-any */
function assertPatched(t: any, r: RunResult, model: string, path: string): SimCall[] {
  t.comment(`$ ${r.command}\n  → exit ${r.exit} in ${r.ms} ms`);
  t.notOk(r.error, `runner error: ${r.error ?? ''}`);
  t.equal(r.exit, 0, `codex exit code (stderr: ${r.stderr.slice(-1500)})`);
  t.equal(r.files[PATCH_FILE], `${PATCH_LINE}\n`, `Codex created ${PATCH_FILE} with apply_patch`);
  t.match(r.stdout, /Tool result received: Exit code: 0/, `stdout carries the model's final answer: ${JSON.stringify(r.stdout.slice(-400))}`);
  t.match(r.stdout, `A ${PATCH_FILE}`, 'which quotes what apply_patch reported');
  const logs = r.gatewayLogs.filter((l) => l.msg === 'request');
  t.same(logs.map((l) => [l.endpoint, l.status, l.model]), [['responses', 200, model], ['responses', 200, model]], 'the gateway served two Responses requests');
  const calls = r.sim.filter((c) => c.method === 'POST' && c.path === path);
  t.equal(calls.length, 2, `two ${path} calls upstream`);
  const names = toolNames(calls[0]);
  t.ok(names.includes('apply_patch'), 'apply_patch offered upstream');
  t.ok(names.includes('multi_agent_v1__spawn_agent'), "Codex's multi_agent_v1 namespace flattened, not dropped (F31)");
  t.notOk(names.includes('web_search'), 'the hosted web_search (no backend) is not sent');
  return calls;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

if (why === null) {
  t.test('(a) a Claude model (Anthropic Messages deployment): apply_patch creates the file', async (t) => {
    const r = await runScenario(bin, { model: 'anthropic/claude-sonnet-5', prompt: PROMPT });
    const [, second] = assertPatched(t, r, 'anthropic/claude-sonnet-5', '/v1/messages');
    const msgs = second!.body.messages as Obj[];
    const [assistant, result] = msgs.slice(-2) as [Obj, Obj];
    const use = (assistant.content as Obj[]).find((b) => b.type === 'tool_use');
    t.match(use, { name: 'apply_patch', input: { input: DEMO_PATCH } }, 'the call went back as the tool_use it was');
    t.match(result, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id }] }, 'its output right after it');
    t.match(JSON.stringify(result.content), /Success. Updated the following files/);
  });

  t.test('(b) a Chat Completions deployment (openai/gpt-5): apply_patch creates the file', async (t) => {
    const r = await runScenario(bin, { model: 'openai/gpt-5', prompt: PROMPT });
    const [, second] = assertPatched(t, r, 'openai/gpt-5', '/v1/chat/completions');
    const msgs = second!.body.messages as Obj[];
    const [assistant, result] = msgs.slice(-2) as [Obj, Obj];
    const call = (assistant.tool_calls as Obj[] | undefined)?.[0];
    t.match(call, { type: 'function', function: { name: 'apply_patch' } });
    t.same(JSON.parse(String((call?.function as Obj).arguments)), { input: DEMO_PATCH });
    t.match(result, { role: 'tool', tool_call_id: call?.id });
    t.match(String(result.content), /Success. Updated the following files/);
  });
}
