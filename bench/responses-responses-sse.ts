// Scenario (#21): streaming Responses to an OpenAI Responses deployment, 50 deltas, the 4-turn
// support conversation (native Responses → Responses path). At 16 and 64 connections.
import { GPT_RESPONSES, supportResponsesRequest } from './bodies.js';
import { atConnections, type HttpScenario } from './scenario.js';

const base: HttpScenario = {
  kind: 'http',
  name: 'resp-resp-sse',
  title: 'Responses → OpenAI Responses, SSE 50 deltas, 4-turn body',
  stream: true,
  judged: true,
  request: () => supportResponsesRequest(GPT_RESPONSES, true),
};

export const scenarios = [atConnections(base, 16), atConnections(base, 64)];
