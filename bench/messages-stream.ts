// Scenario: streaming Messages to an Anthropic deployment, native pass-through, 50 text deltas.
import { CLAUDE, messagesRequest } from './bodies.js';
import type { HttpScenario } from './scenario.js';

export const scenario: HttpScenario = {
  kind: 'http',
  name: 'messages-stream',
  title: 'Messages → Anthropic, SSE 50 deltas',
  stream: true,
  main: true,
  request: () => messagesRequest(CLAUDE, true),
};
