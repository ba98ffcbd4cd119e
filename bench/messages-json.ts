// Scenario: non-streaming Messages to an Anthropic deployment (native, no translation).
import { CLAUDE, messagesRequest } from './bodies.js';
import type { HttpScenario } from './scenario.js';

export const scenario: HttpScenario = {
  kind: 'http',
  name: 'messages-json',
  title: 'Messages → Anthropic, JSON',
  stream: false,
  main: true,
  request: () => messagesRequest(CLAUDE, false),
};
