// Claude Code 2.1.330 (`claude -p`) against bin/gateway, inside a loopback-only network namespace,
// with the simulated provider behind the gateway. The demo model calls Bash with
// `echo gateway-tool-ok`; Claude Code runs it and sends the tool_result; the demo model answers
// `Tool result received: gateway-tool-ok`, which `claude -p` prints.
//
// Run by `npm run test:clients` (which sets GATEWAY_CLIENT_TIER=1; `.ci/run` runs it). Claude Code
// is installed into .cache/clients on first use. When the binary cannot be installed or no
// namespace can be made (`../shared` missing beside the clone, or GATEWAY_CLIENT_NETNS pointing
// nowhere), it fails under CI (CI=true) and elsewhere skips with a banner on stderr saying why.
import t from 'tap';
import { simSignature } from '../../lib/sim/demo.js';
import { withModels } from '../helpers/gateway.js';
import { clientsConfig } from './config.js';
import { CLAUDE_CODE_VERSION, ensureClaudeCode, netnsProblem, runScenario, tierVerdict, type RunResult, type SimCall } from './claude-code.js';

type Obj = Record<string, unknown>;

const MARKER = 'gateway-tool-ok';
const ANSWER = `Tool result received: ${MARKER}`;
const PROMPT = `Run \`echo ${MARKER}\` with the Bash tool and reply with what it printed.`;

function unavailable(): string | null {
  if (process.env.GATEWAY_CLIENT_TIER !== '1') return 'the Claude Code tier runs with `npm run test:clients`';
  const ns = netnsProblem();
  if (ns) return ns;
  const inst = ensureClaudeCode();
  t.comment(`claude-code ${CLAUDE_CODE_VERSION}: ${inst.bin ?? 'unavailable'} (${inst.installed ? `installed in ${inst.ms} ms` : 'cached'})`);
  if (!inst.bin) return inst.reason ?? 'no binary';
  bin = inst.bin;
  return null;
}

let bin = '';
const why = unavailable();
const verdict = tierVerdict(why, process.env);
if (verdict === 'fail') {
  t.fail(`the Claude Code tier must run under CI (CI=${process.env.CI}), and cannot: ${why}`);
} else if (verdict === 'skip-loudly') {
  // tap shows a skipped file as one quiet line: say on stderr that nothing ran, and why
  const banner = `CLIENT TIER SKIPPED: nothing was tested, because ${why}. Under CI (CI=true) this is a failure.`;
  console.error(`\n${'!'.repeat(banner.length)}\n${banner}\n${'!'.repeat(banner.length)}\n`);
  t.plan(0, why!);
} else if (verdict === 'skip') {
  t.plan(0, why!);
}

const messagesCalls = (r: RunResult): SimCall[] => r.sim.filter((c) => c.method === 'POST' && c.path === '/v1/messages');
const chatCalls = (r: RunResult): SimCall[] => r.sim.filter((c) => c.method === 'POST' && c.path === '/v1/chat/completions');
const requestLogs = (r: RunResult): Obj[] => r.gatewayLogs.filter((l) => l.msg === 'request');

/* eslint-disable @typescript-eslint/no-explicit-any */
/** The run ended well: exit 0, the final answer printed, no API error. */
function assertCompleted(t: any, r: RunResult): void {
  t.comment(`$ ${r.command}\n  → exit ${r.exit} in ${r.ms} ms`);
  t.notOk(r.error, `runner error: ${r.error ?? ''}`);
  t.equal(r.exit, 0, `claude exit code (stderr: ${r.stderr.slice(-1500)})`);
  t.ok(r.ms < 120_000, `within the timeout (${r.ms} ms)`);
  t.match(r.stdout, ANSWER, `stdout carries the model's final answer: ${JSON.stringify(r.stdout.slice(-500))}`);
  t.notMatch(r.stderr, /API Error/, 'no API error on stderr');
}

/** Two gateway requests on /v1/messages, both 200, served by `model`. */
function assertGatewayRequests(t: any, r: RunResult, model: string): void {
  const logs = requestLogs(r);
  t.same(logs.map((l) => [l.endpoint, l.status, l.model]), [['messages', 200, model], ['messages', 200, model]], 'the gateway served two Messages requests');
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** The assistant tool call and the tool result of a Messages conversation. */
function toolTurn(body: Obj): { toolUse?: Obj; result?: Obj; thinking?: Obj } {
  const msgs = (body.messages as Obj[]).filter((m) => m.role !== 'system');
  const blocks = (m: Obj | undefined): Obj[] => (Array.isArray(m?.content) ? (m.content as Obj[]) : []);
  const assistant = msgs.find((m) => m.role === 'assistant');
  return {
    toolUse: blocks(assistant).find((b) => b.type === 'tool_use'),
    thinking: blocks(assistant).find((b) => b.type === 'thinking'),
    result: blocks(msgs.at(-1)).find((b) => b.type === 'tool_result'),
  };
}

const resultText = (b: Obj | undefined): string => (typeof b?.content === 'string' ? b.content : JSON.stringify(b?.content ?? ''));

if (why === null) {
  t.test('(a) a Claude model served natively: one Bash call, then the final answer', async (t) => {
    const r = await runScenario(bin, { prompt: PROMPT, args: [] });
    assertCompleted(t, r);
    assertGatewayRequests(t, r, 'anthropic/claude-opus-5.5');
    const calls = messagesCalls(r);
    t.equal(calls.length, 2, 'the provider got the first turn and the tool-result turn');
    const [first, second] = calls;
    t.equal(first?.body.model, 'claude-opus-5-5', "Claude Code's default model id, resolved and forwarded");
    t.ok((first?.body.tools as Obj[]).some((x) => x.name === 'Bash'), 'Bash offered');
    const turn = toolTurn(second!.body);
    t.match(turn.toolUse, { name: 'Bash', input: { command: `echo ${MARKER}` } }, 'the Bash call went back');
    t.equal(turn.result?.tool_use_id, turn.toolUse?.id);
    t.match(resultText(turn.result), MARKER, 'with the command output');
    t.match(String(first?.headers['anthropic-beta'] ?? ''), /claude-code-20250219/, 'betas forwarded');
  });

  t.test('(b) a model served by an OpenAI-Chat deployment (--model openai/gpt-5)', async (t) => {
    const r = await runScenario(bin, { prompt: PROMPT, args: ['--model', 'openai/gpt-5'] });
    assertCompleted(t, r);
    assertGatewayRequests(t, r, 'openai/gpt-5');
    const calls = chatCalls(r);
    t.equal(calls.length, 2, 'two Chat Completions calls upstream');
    t.equal(messagesCalls(r).length, 0);
    const [first, second] = calls;
    t.equal(first?.body.model, 'gpt-5');
    t.ok((first?.body.tools as Obj[]).some((x) => (x.function as Obj | undefined)?.name === 'Bash'), 'Bash offered as a function');
    const msgs = second!.body.messages as Obj[];
    const assistant = msgs.find((m) => m.role === 'assistant');
    const call = (assistant?.tool_calls as Obj[] | undefined)?.[0];
    t.match(call, { type: 'function', function: { name: 'Bash' } });
    t.same(JSON.parse(String((call?.function as Obj).arguments)), { command: `echo ${MARKER}`, description: 'Print a marker' });
    t.match(msgs.at(-1), { role: 'tool', tool_call_id: call?.id }, 'the tool result as a tool message');
    t.match(JSON.stringify(msgs.at(-1)?.content), MARKER);
  });

  t.test('(c) thinking round trip: the signed block goes back and the provider verifies it', async (t) => {
    const r = await runScenario(bin, { prompt: PROMPT, args: ['--model', 'sonnet'] });
    assertCompleted(t, r);
    assertGatewayRequests(t, r, 'anthropic/claude-sonnet-5.5');
    const [first, second] = messagesCalls(r);
    t.equal(first?.body.model, 'claude-sonnet-5-5', '--model sonnet is claude-sonnet-5-5');
    t.match(first?.body.thinking, { type: 'adaptive' }, 'Claude Code asks for adaptive thinking');
    const { thinking } = toolTurn(second!.body);
    t.ok(thinking, 'the second request carries the thinking block back');
    t.match(thinking?.thinking, /^Thinking about: /);
    t.equal(thinking?.signature, simSignature('claude-sonnet-5-5', String(thinking?.thinking)), 'with its signature, byte-identical (the provider verified it)');
  });

  // FAILURE-MODES F5: the tool call is cut by the token limit halfway through its arguments, from a
  // Chat deployment (finish_reason length) and from a Messages one (max_tokens after the block stopped,
  // as a relay sends it). The gateway ends the turn with stop_reason max_tokens and leaves the cut
  // tool_use block unclosed; Claude Code must never try to run it (no InputValidationError about JSON,
  // no tool_result sent back) and every answer is a 200, not a retryable error.
  for (const [model, provider, api] of [['test/cut-tool-chat', 'sim-openai', 'chat'], ['test/cut-tool-messages', 'sim-anthropic', undefined]] as const) {
    t.test(`(e) a tool call cut by the token limit (${model})`, async (t) => {
      const config = withModels(clientsConfig(), [
        { id: model, family: api === 'chat' ? 'openai' : 'anthropic', deployments: [{ provider, model: api === 'chat' ? 'gpt-5;cut-tool' : 'claude-opus-5-5;cut-tool', ...(api === undefined ? {} : { api }) }], pricing: { input: 1, output: 2 }, input: ['text'], contextWindow: 200000, maxOutputTokens: 32000 },
      ]);
      const r = await runScenario(bin, { prompt: PROMPT, args: ['--model', model], config });
      t.comment(`$ ${r.command}\n  → exit ${r.exit} in ${r.ms} ms\n${r.stdout.slice(-800)}\n${r.stderr.slice(-800)}`);
      t.notOk(r.error, `runner error: ${r.error ?? ''}`);
      const logs = requestLogs(r);
      t.ok(logs.length >= 1, 'Claude Code asked at least once');
      t.comment(`${logs.length} request(s), the first: ${JSON.stringify(logs.slice(0, 6).map((l) => [l.status, l.errorCode ?? null]))}`);
      t.same(logs.filter((l) => l.status !== 200 || l.errorCode !== undefined).map((l) => l.errorMessage ?? l.status), [], 'every turn an answer, none an error (nor one mid-stream)');
      t.match(r.stdout + r.stderr, /exceeded the \d+ output token maximum/, 'Claude Code reports the output limit');
      t.notMatch(r.stdout + r.stderr, /InputValidationError|could not be parsed as JSON/, 'the cut call was never parsed as a call');
      const upstream = [...messagesCalls(r), ...chatCalls(r)];
      t.notOk(upstream.some((c) => /"tool_result"|"role":"tool"/.test(JSON.stringify(c.body.messages))), 'no tool result went back: the tool never ran');
    });
  }

  t.test('(d) --model gateway-auto', async (t) => {
    const r = await runScenario(bin, { prompt: PROMPT, args: ['--model', 'gateway-auto'] });
    assertCompleted(t, r);
    assertGatewayRequests(t, r, 'anthropic/claude-sonnet-5');
    const calls = messagesCalls(r);
    t.equal(calls.length, 2);
    t.same(calls.map((c) => c.body.model), ['claude-sonnet-5', 'claude-sonnet-5'], 'both turns routed to the same model (the session keeps it)');
    const { thinking } = toolTurn(calls[1]!.body);
    t.ok(thinking, 'the replayed thinking went back to the model that signed it');
    t.equal(thinking?.signature, simSignature('claude-sonnet-5', String(thinking?.thinking)));
  });
}
