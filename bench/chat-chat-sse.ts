// Scenario (#21): streaming Chat Completions to an OpenAI Chat deployment, 50 deltas, the 4-turn
// support conversation (native Chat → Chat path). At 16 and 64 connections.
import { GPT, supportChatRequest } from './bodies.js';
import { atConnections, type HttpScenario } from './scenario.js';

const base: HttpScenario = {
  kind: 'http',
  name: 'chat-chat-sse',
  title: 'Chat → OpenAI Chat, SSE 50 deltas, 4-turn body',
  stream: true,
  judged: true,
  request: () => supportChatRequest(GPT, true),
};

export const scenarios = [atConnections(base, 16), atConnections(base, 64)];
