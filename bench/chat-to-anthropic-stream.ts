// Scenario: streaming Chat Completions translated to an Anthropic (Messages) deployment, 50 deltas.
import { CLAUDE, chatRequest } from './bodies.js';
import type { HttpScenario } from './scenario.js';

export const scenario: HttpScenario = {
  kind: 'http',
  name: 'chat-to-anthropic-stream',
  title: 'Chat → Anthropic (translated), SSE 50 deltas',
  stream: true,
  request: () => chatRequest(CLAUDE, true),
};
