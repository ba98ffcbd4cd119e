// Scenario: streaming Messages translated to an OpenAI (Chat) deployment, 50 deltas: what
// claude-code-router does (Claude Code in front of an OpenAI-style upstream).
import { GPT, messagesRequest } from './bodies.js';
import type { HttpScenario } from './scenario.js';

export const scenario: HttpScenario = {
  kind: 'http',
  name: 'messages-to-chat-stream',
  title: 'Messages → OpenAI (translated), SSE 50 deltas',
  stream: true,
  request: () => messagesRequest(GPT, true),
};
