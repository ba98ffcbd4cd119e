// Scenario: Responses to an OpenAI Responses deployment, JSON, the 4-turn support conversation (the
// native Responses → Responses JSON path). Not a row issue #21 is judged on; at 16 connections.
import { GPT_RESPONSES, supportResponsesRequest } from './bodies.js';
import { atConnections, type HttpScenario } from './scenario.js';

const base: HttpScenario = {
  kind: 'http',
  name: 'resp-resp-json',
  title: 'Responses → OpenAI Responses, JSON, 4-turn body',
  stream: false,
  request: () => supportResponsesRequest(GPT_RESPONSES, false),
};

export const scenarios = [atConnections(base, 16)];
