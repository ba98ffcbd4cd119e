// POST /v1/messages: the query and `anthropic-*` headers checked, the key authenticated and scoped,
// then the generation chain (lib/chains.ts) with the Messages validator.
import { buildMessagesChain } from '../chains.js';
import { anthropicDialect } from './dialects.js';
import { auth, messagesHeaders, messagesQuery, scope } from './hooks.js';
import type { EndpointDefinition } from './types.js';

export const messages: EndpointDefinition = {
  method: 'POST',
  path: '/v1/messages',
  build: (config) => ({ name: 'messages', dialect: anthropicDialect, hooks: [messagesQuery, auth, messagesHeaders(true), scope('messages')], chain: buildMessagesChain(config) }),
};
