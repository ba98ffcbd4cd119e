// Scenario: streaming Chat Completions to an OpenAI (Chat) deployment, 50 deltas.
import { GPT, chatRequest } from './bodies.js';
import type { HttpScenario } from './scenario.js';

export const scenario: HttpScenario = {
  kind: 'http',
  name: 'chat-to-openai-stream',
  title: 'Chat → OpenAI, SSE 50 deltas',
  stream: true,
  request: () => chatRequest(GPT, true),
};
