// The OpenAI Agents SDK (`@openai/agents` 0.20.0) against bin/gateway, inside a loopback-only network
// namespace, with the simulated provider behind the gateway (script: sdk/openai-agents.mjs). An agent
// with a `get_weather` function tool runs a task with run() and one with run({stream: true}); the demo
// model calls the tool, the SDK executes it, the demo model answers `Tool result received: sunny in x`.
// Through the SDK's default Responses API on a model served by a Responses deployment (native) and on
// a Claude model (translated to Messages upstream), and through its Chat Completions mode
// (`setOpenAIAPI('chat_completions')`) on gpt-5 (native) and on a Claude model (translated).
//
// Run by `npm run test:clients` (GATEWAY_CLIENT_TIER=1); the SDK is installed into
// .cache/clients/openai-agents on first use. See tier.ts for when it skips and when it fails.
import t from 'tap';
import { checkSdkRun, ensureSdkClient, OPENAI_AGENTS, RESPONSES_MODEL, sdkRun, type Served } from './sdk-client.js';
import { gateTier, runInNamespace, tierProblem } from './tier.js';

let script = '';
function unavailable(): string | null {
  const why = tierProblem();
  if (why) return why;
  const inst = ensureSdkClient(OPENAI_AGENTS);
  t.comment(`${Object.entries(OPENAI_AGENTS.packages).map(([p, v]) => `${p}@${v}`).join(' ')}: ${inst.installed ? `installed in ${inst.ms} ms` : 'cached'}`);
  script = inst.script ?? '';
  return inst.script ? null : inst.reason ?? 'not installed';
}

interface Case extends Served {
  name: string;
  model: string;
  api: 'responses' | 'chat_completions';
}

const CASES: Case[] = [
  { name: 'Responses API, gpt-5-mini (native: a Responses deployment)', model: 'gpt-5-mini', api: 'responses', endpoint: 'responses', catalog: 'openai/gpt-5-mini', upstream: '/v1/responses' },
  { name: 'Responses API, a Claude model (translated to Messages upstream)', model: 'claude-opus-5', api: 'responses', endpoint: 'responses', catalog: 'anthropic/claude-opus-5', upstream: '/v1/messages' },
  { name: 'Chat Completions mode, gpt-5 (native)', model: 'gpt-5', api: 'chat_completions', endpoint: 'chat.completions', catalog: 'openai/gpt-5', upstream: '/v1/chat/completions' },
  { name: 'Chat Completions mode, a Claude model (translated to Messages upstream)', model: 'claude-opus-5', api: 'chat_completions', endpoint: 'chat.completions', catalog: 'anthropic/claude-opus-5', upstream: '/v1/messages' },
];

if (gateTier(t, 'OpenAI Agents SDK', unavailable())) {
  for (const c of CASES) {
    t.test(c.name, async (t) => {
      const r = await runInNamespace(sdkRun(script, { model: c.model, api: c.api }, [RESPONSES_MODEL]));
      const out = checkSdkRun(t, r, c, 4);
      t.same(out.calls, ['x', 'x'], 'the agent executed get_weather once per run');
      t.equal(out.final, 'Tool result received: sunny in x', 'run(): the final output');
      t.equal(out.streamedFinal, 'Tool result received: sunny in x', 'run({stream}): the final output');
      t.equal(out.streamedText, 'Tool result received: sunny in x', 'and its text stream');
    });
  }
}
