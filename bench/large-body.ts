// Scenario: a 200 KB Claude-Code-sized Messages request (system prompt, tools, long tool-use
// history), streamed back natively from an Anthropic deployment.
import { CLAUDE, claudeCodeBody, messagesHeaders } from './bodies.js';
import type { HttpScenario } from './scenario.js';

let body: string | undefined;

export const scenario: HttpScenario = {
  kind: 'http',
  name: 'large-body-200k',
  title: 'Messages 200 KB body → Anthropic, SSE',
  stream: true,
  request: () => ({ path: '/v1/messages', headers: messagesHeaders(), body: (body ??= claudeCodeBody(CLAUDE, 200 * 1024)) }),
};
