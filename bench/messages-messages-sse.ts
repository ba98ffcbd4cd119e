// Scenario (#21): streaming Messages to an Anthropic deployment, 50 deltas, the 4-turn support
// conversation (native Messages → Messages path). At 16 and 64 connections.
import { CLAUDE, supportMessagesRequest } from './bodies.js';
import { atConnections, type HttpScenario } from './scenario.js';

const base: HttpScenario = {
  kind: 'http',
  name: 'msg-msg-sse',
  title: 'Messages → Anthropic, SSE 50 deltas, 4-turn body',
  stream: true,
  judged: true,
  request: () => supportMessagesRequest(CLAUDE, true),
};

export const scenarios = [atConnections(base, 16), atConnections(base, 64)];
