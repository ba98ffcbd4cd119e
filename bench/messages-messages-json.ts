// Scenario: Messages to an Anthropic deployment, JSON, the 4-turn support conversation (the native
// Messages → Messages JSON path). Not a row issue #21 is judged on; at 16 connections.
import { CLAUDE, supportMessagesRequest } from './bodies.js';
import { atConnections, type HttpScenario } from './scenario.js';

const base: HttpScenario = {
  kind: 'http',
  name: 'msg-msg-json',
  title: 'Messages → Anthropic, JSON, 4-turn body',
  stream: false,
  request: () => supportMessagesRequest(CLAUDE, false),
};

export const scenarios = [atConnections(base, 16)];
