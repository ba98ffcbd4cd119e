// The gateway configuration the client tier runs against: the test base config (Claude models on an
// Anthropic-protocol sim deployment, `openai/gpt-5` on an OpenAI-Chat sim deployment) plus the
// models Claude Code 2.1.330 asks for by default. Claude Code sends `claude-opus-5-5`,
// `claude-sonnet-5-5` (`--model sonnet`) and `claude-haiku-5-5` (`--model haiku`): undated vendor
// names that resolve to `anthropic/claude-*-5.5` (decisions §8) without any alias.
import { baseConfig, withModels } from '../helpers/gateway.js';

function claude55(name: 'opus' | 'sonnet' | 'haiku', price: [number, number], maxOut: number): Record<string, unknown> {
  return {
    id: `anthropic/claude-${name}-5.5`,
    family: 'anthropic',
    deployments: [{ provider: 'sim-anthropic', model: `claude-${name}-5-5` }],
    pricing: { input: price[0], output: price[1], cacheRead: price[0] / 10, cacheWrite: price[0] * 1.25 },
    input: ['text', 'image'],
    contextWindow: 200000,
    maxOutputTokens: maxOut,
    reasoning: true,
  };
}

export function clientsConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return withModels(baseConfig(extra), [
    claude55('opus', [5, 25], 64000),
    claude55('sonnet', [3, 15], 64000),
    claude55('haiku', [1, 5], 32000),
  ]);
}
