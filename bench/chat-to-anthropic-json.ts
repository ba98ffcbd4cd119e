// Scenario: non-streaming Chat Completions translated to an Anthropic (Messages) deployment.
import { CLAUDE, chatRequest } from './bodies.js';
import type { HttpScenario } from './scenario.js';

export const scenario: HttpScenario = {
  kind: 'http',
  name: 'chat-to-anthropic-json',
  title: 'Chat → Anthropic (translated), JSON',
  stream: false,
  request: () => chatRequest(CLAUDE, false),
};
