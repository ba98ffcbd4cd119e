// POST /v1/messages/count_tokens: checked like /v1/messages, then validated and routed, and always
// answered 404 (no authoritative count exists; stages/count-tokens.ts).
import { buildCountTokensChain } from '../chains.js';
import { anthropicDialect } from './dialects.js';
import { auth, messagesHeaders, messagesQuery, scope } from './hooks.js';
import type { EndpointDefinition } from './types.js';

export const countTokens: EndpointDefinition = {
  method: 'POST',
  path: '/v1/messages/count_tokens',
  build: (config) => ({ name: 'messages.count_tokens', dialect: anthropicDialect, hooks: [messagesQuery, auth, messagesHeaders(true), scope('messages')], chain: buildCountTokensChain(config) }),
};
