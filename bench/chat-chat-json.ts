// Scenario (#21): Chat Completions to an OpenAI Chat deployment, JSON, the 4-turn support
// conversation; same dialect both sides, so the native Chat → Chat path. At 16 and 64 connections.
import { GPT, supportChatRequest } from './bodies.js';
import { atConnections, type HttpScenario } from './scenario.js';

const base: HttpScenario = {
  kind: 'http',
  name: 'chat-chat-json',
  title: 'Chat → OpenAI Chat, JSON, 4-turn body',
  stream: false,
  judged: true,
  request: () => supportChatRequest(GPT, false),
};

export const scenarios = [atConnections(base, 16), atConnections(base, 64)];
