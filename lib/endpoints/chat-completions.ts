// POST /v1/chat/completions: the key authenticated and scoped, a JSON content type, then the
// generation chain (lib/chains.ts) with the Chat Completions validator.
import { buildChatChain } from '../chains.js';
import { openAiDialect } from './dialects.js';
import { auth, jsonContentType, scope } from './hooks.js';
import type { EndpointDefinition } from './types.js';

export const chatCompletions: EndpointDefinition = {
  method: 'POST',
  path: '/v1/chat/completions',
  build: (config) => ({ name: 'chat.completions', dialect: openAiDialect, hooks: [auth, scope('chat.completions'), jsonContentType], chain: buildChatChain(config) }),
};
