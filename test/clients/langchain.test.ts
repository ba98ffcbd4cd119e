// LangChain (`@langchain/openai` 1.6.0 ChatOpenAI, `@langchain/anthropic` 1.5.11 ChatAnthropic, with
// `@langchain/core` 1.4.0) against bin/gateway, inside a loopback-only network namespace, with the
// simulated provider behind the gateway (script: sdk/langchain.mjs). The model, bound to a
// `get_weather` tool, asks for it; the script runs the tool call (tool.invoke → ToolMessage) and
// streams the next turn; the demo model answers `Tool result received: sunny in x`. Each chat model
// on a model of its own dialect (native) and one of the other (translated).
//
// Run by `npm run test:clients` (GATEWAY_CLIENT_TIER=1); the packages are installed into
// .cache/clients/langchain on first use. See tier.ts for when it skips and when it fails.
import t from 'tap';
import { checkSdkRun, ensureSdkClient, LANGCHAIN, sdkRun, type Served } from './sdk-client.js';
import { gateTier, runInNamespace, tierProblem } from './tier.js';

let script = '';
function unavailable(): string | null {
  const why = tierProblem();
  if (why) return why;
  const inst = ensureSdkClient(LANGCHAIN);
  t.comment(`${Object.entries(LANGCHAIN.packages).map(([p, v]) => `${p}@${v}`).join(' ')}: ${inst.installed ? `installed in ${inst.ms} ms` : 'cached'}`);
  script = inst.script ?? '';
  return inst.script ? null : inst.reason ?? 'not installed';
}

interface Case extends Served {
  name: string;
  provider: 'openai' | 'anthropic';
  model: string;
}

const CASES: Case[] = [
  { name: 'ChatOpenAI, gpt-5 (native)', provider: 'openai', model: 'gpt-5', endpoint: 'chat.completions', catalog: 'openai/gpt-5', upstream: '/v1/chat/completions' },
  { name: 'ChatOpenAI, a Claude model (translated to Messages upstream)', provider: 'openai', model: 'claude-opus-5', endpoint: 'chat.completions', catalog: 'anthropic/claude-opus-5', upstream: '/v1/messages' },
  { name: 'ChatAnthropic, a Claude model (native)', provider: 'anthropic', model: 'claude-opus-5', endpoint: 'messages', catalog: 'anthropic/claude-opus-5', upstream: '/v1/messages' },
  { name: 'ChatAnthropic, gpt-5 (translated to Chat upstream)', provider: 'anthropic', model: 'gpt-5', endpoint: 'messages', catalog: 'openai/gpt-5', upstream: '/v1/chat/completions' },
];

if (gateTier(t, 'LangChain', unavailable())) {
  for (const c of CASES) {
    t.test(c.name, async (t) => {
      const r = await runInNamespace(sdkRun(script, { provider: c.provider, model: c.model }));
      const out = checkSdkRun(t, r, c, 2);
      t.match(out.toolCalls, [{ name: 'get_weather', args: { city: 'x' }, id: String }], 'the first turn asked for get_weather');
      t.same(out.calls, ['x'], 'the script executed it');
      t.equal(out.final, 'Tool result received: sunny in x', 'the streamed final answer');
      t.match(out.usage, { input_tokens: Number, output_tokens: Number }, 'with usage metadata');
      t.ok((out.usage as { output_tokens?: number } | undefined)?.output_tokens, 'output tokens counted');
    });
  }
}
