// OpenCode 1.18.33 (`opencode run`) against bin/gateway, inside a loopback-only network namespace,
// with the simulated provider behind the gateway. The gateway is configured in `opencode.json` as two
// providers: `gateway-messages` (Messages, `@ai-sdk/anthropic`) and `gateway-chat` (Chat Completions,
// `@ai-sdk/openai-compatible`). The demo model calls OpenCode's built-in `bash` tool with
// `echo gateway-tool-ok`; OpenCode runs it and sends the output back; the demo model answers
// `Tool result received: gateway-tool-ok`, which `opencode run` prints. Each provider runs a model
// served natively (same dialect upstream) and one translated (the other dialect upstream). One more
// run has the built-in `write` tool create a file in the work folder.
//
// Run by `npm run test:clients` (GATEWAY_CLIENT_TIER=1); OpenCode is installed into
// .cache/clients/opencode on first use. See tier.ts for when it skips and when it fails.
import t from 'tap';
import { ensureOpenCode, openCodeRun, OPENCODE_VERSION } from './opencode.js';
import { gateTier, runInNamespace, tierProblem, type ClientRun } from './tier.js';

type Obj = Record<string, unknown>;

const MARKER = 'gateway-tool-ok';
const ANSWER = `Tool result received: ${MARKER}`;
const PROMPT = `Run \`echo ${MARKER}\` with the bash tool and reply with what it printed.`;

let bin = '';
function unavailable(): string | null {
  const why = tierProblem();
  if (why) return why;
  const inst = ensureOpenCode();
  t.comment(`opencode ${OPENCODE_VERSION}: ${inst.bin ?? 'unavailable'} (${inst.installed ? `installed in ${inst.ms} ms` : 'cached'})`);
  bin = inst.bin ?? '';
  return inst.bin ? null : inst.reason ?? 'no binary';
}

interface Case {
  name: string;
  /** `--model` of `opencode run` */
  model: string;
  /** the gateway endpoint OpenCode calls, as the request log names it */
  endpoint: 'messages' | 'chat.completions';
  /** the catalog model that serves it */
  catalog: string;
  /** the path the simulated provider is called on */
  upstream: '/v1/messages' | '/v1/chat/completions';
}

const CASES: Case[] = [
  { name: 'Messages, a Claude model (native)', model: 'gateway-messages/claude-opus-5', endpoint: 'messages', catalog: 'anthropic/claude-opus-5', upstream: '/v1/messages' },
  { name: 'Messages, gpt-5 (translated to Chat upstream)', model: 'gateway-messages/gpt-5', endpoint: 'messages', catalog: 'openai/gpt-5', upstream: '/v1/chat/completions' },
  { name: 'Chat Completions, gpt-5 (native)', model: 'gateway-chat/gpt-5', endpoint: 'chat.completions', catalog: 'openai/gpt-5', upstream: '/v1/chat/completions' },
  { name: 'Chat Completions, a Claude model (translated to Messages upstream)', model: 'gateway-chat/claude-opus-5', endpoint: 'chat.completions', catalog: 'anthropic/claude-opus-5', upstream: '/v1/messages' },
];

/** The tool names a request offered, in either dialect. */
const toolNames = (body: Obj): string[] => ((body.tools as Obj[] | undefined) ?? []).map((x) => String(x.name ?? (x.function as Obj | undefined)?.name));

/** The text of the tool result the last message of a request carries, in either dialect. */
function lastToolResult(body: Obj): string | undefined {
  const last = (body.messages as Obj[]).at(-1);
  if (last?.role === 'tool') return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
  const block = (Array.isArray(last?.content) ? (last.content as Obj[]) : []).find((b) => b.type === 'tool_result');
  if (!block) return undefined;
  return typeof block.content === 'string' ? block.content : JSON.stringify(block.content);
}

if (gateTier(t, 'OpenCode', unavailable())) {
  for (const c of CASES) {
    t.test(`${c.name}: bash runs, then the final answer`, async (t) => {
      const r: ClientRun = await runInNamespace(openCodeRun(bin, c.model, PROMPT));
      t.comment(`$ ${r.command}\n  → exit ${r.exit} in ${r.ms} ms`);
      t.notOk(r.error, `runner error: ${r.error ?? ''}`);
      t.equal(r.exit, 0, `opencode exit code (stderr: ${r.stderr.slice(-1500)})`);
      t.match(r.stdout, ANSWER, `stdout carries the model's final answer: ${JSON.stringify(r.stdout.slice(-500))}`);
      t.notMatch(`${r.stdout}\n${r.stderr}`, /Error:/, 'no error printed');

      // the conversation: the first turn offers bash, the second carries its output back
      const calls = r.sim.filter((s) => s.method === 'POST' && s.path === c.upstream && toolNames(s.body).includes('bash'));
      t.equal(calls.length, 2, `two tool-bearing calls upstream on ${c.upstream}`);
      t.equal(lastToolResult(calls[1]!.body), `${MARKER}\n`, 'the bash output went back: OpenCode ran the command');
      t.ok(r.sim.every((s) => s.path === c.upstream), `nothing reached another upstream path than ${c.upstream}`);

      // what the gateway saw: every request (the title request too) served by the expected model, with usage
      const logs = r.gatewayLogs.filter((l) => l.msg === 'request');
      t.ok(logs.length >= 2, `${logs.length} gateway requests`);
      t.same(
        logs.map((l) => [l.endpoint, l.status, l.model]),
        logs.map(() => [c.endpoint, 200, c.catalog]),
        `each on ${c.endpoint}, 200, served by ${c.catalog}`,
      );
      t.ok(logs.every((l) => ((l.usage as Obj | undefined)?.input as number) > 0 && ((l.usage as Obj | undefined)?.output as number) > 0 && (l.costUsd as number) > 0), 'each with usage and a cost');
      if (c.endpoint === 'chat.completions' && c.upstream === '/v1/messages') {
        // OpenCode marks the system prompt and the last messages of a Claude model with cache_control
        t.match(calls[0]!.body.system, [{ type: 'text', cache_control: { type: 'ephemeral' } }], "OpenCode's cache breakpoints reached the provider");
      }
    });
  }

  t.test('Chat Completions, a Claude model: the write tool creates a file in the work folder', async (t) => {
    const r = await runInNamespace(openCodeRun(bin, 'gateway-chat/claude-opus-5', 'Use the write tool to create the file.'));
    t.comment(`$ ${r.command}\n  → exit ${r.exit} in ${r.ms} ms`);
    t.equal(r.exit, 0, `opencode exit code (stderr: ${r.stderr.slice(-1500)})`);
    // the demo model fills each required argument with "x": filePath "x", content "x"
    t.equal(r.files.x, 'x', 'the file OpenCode wrote');
    t.match(r.stdout, 'Tool result received: Wrote file successfully.', 'and the final answer');
    const last = r.sim.filter((s) => s.path === '/v1/messages' && toolNames(s.body).includes('write')).at(-1);
    t.equal(last && lastToolResult(last.body), 'Wrote file successfully.', 'the tool result went back');
  });
}
