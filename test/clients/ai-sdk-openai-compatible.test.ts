// The AI SDK's OpenAI-compatible provider (`@ai-sdk/openai-compatible` 3.0.92 with `ai` 7.0.173)
// against bin/gateway, inside a loopback-only network namespace, with the simulated provider behind
// the gateway (script: sdk/ai-sdk-openai-compatible.mjs). generateText and then streamText, each with
// a `get_weather` tool and a step limit: the demo model calls the tool, the SDK executes it, the demo
// model answers `Tool result received: sunny in x`. On gpt-5 (native Chat upstream) and on a Claude
// model (translated to Messages upstream).
//
// Run by `npm run test:clients` (GATEWAY_CLIENT_TIER=1); the packages are installed into
// .cache/clients/ai-sdk-openai-compatible on first use. See tier.ts for when it skips and when it fails.
import t from 'tap';
import { AI_SDK_OPENAI_COMPATIBLE, checkSdkRun, ensureSdkClient, sdkRun, type Served } from './sdk-client.js';
import { gateTier, runInNamespace, tierProblem } from './tier.js';

let script = '';
function unavailable(): string | null {
  const why = tierProblem();
  if (why) return why;
  const inst = ensureSdkClient(AI_SDK_OPENAI_COMPATIBLE);
  t.comment(`${Object.entries(AI_SDK_OPENAI_COMPATIBLE.packages).map(([p, v]) => `${p}@${v}`).join(' ')}: ${inst.installed ? `installed in ${inst.ms} ms` : 'cached'}`);
  script = inst.script ?? '';
  return inst.script ? null : inst.reason ?? 'not installed';
}

interface Case extends Served {
  name: string;
  model: string;
}

const CASES: Case[] = [
  { name: 'gpt-5 (native)', model: 'gpt-5', endpoint: 'chat.completions', catalog: 'openai/gpt-5', upstream: '/v1/chat/completions' },
  { name: 'a Claude model (translated to Messages upstream)', model: 'claude-opus-5', endpoint: 'chat.completions', catalog: 'anthropic/claude-opus-5', upstream: '/v1/messages' },
];

if (gateTier(t, 'AI SDK openai-compatible', unavailable())) {
  for (const c of CASES) {
    t.test(c.name, async (t) => {
      const r = await runInNamespace(sdkRun(script, { model: c.model }));
      const out = checkSdkRun(t, r, c, 4);
      t.same(out.calls, ['x', 'x'], 'the SDK executed get_weather once per call');
      t.equal(out.text, 'Tool result received: sunny in x', 'generateText: the final text');
      t.equal(out.finishReason, 'stop');
      t.equal(out.steps, 2, 'two steps: the tool call, then the answer');
      t.equal(out.streamedText, 'Tool result received: sunny in x', 'streamText: the final text');
      t.equal(out.streamedFinishReason, 'stop');
      for (const key of ['usage', 'streamedUsage']) {
        const u = out[key] as { inputTokens?: number; outputTokens?: number } | undefined;
        t.ok((u?.inputTokens ?? 0) > 0 && (u?.outputTokens ?? 0) > 0, `${key}: tokens counted (${JSON.stringify(u)})`);
      }
    });
  }
}
