// The OpenAI Chat Completions dialect (the Dialect interface, ../dialect.ts). Reached through the
// registry (../index.ts) only. Error envelope, rate-limit names and the request-id header are the
// OpenAI platform's, shared with the other OpenAI dialects (lib/openai/).
import { openAiErrorBody } from '../../openai/errors.js';
import { OPENAI_RATE_LIMIT_HEADERS, OPENAI_REQUEST_ID } from '../../openai/headers.js';
import type { Dialect } from '../dialect.js';
import { CHAT_ANSWER_MEMBERS } from './client.js';
import { readChatConversation } from './conversation.js';
import { chatJsonEncode } from './encode-json.js';
import { CHAT_KEEPALIVE, ChatSseEncoder } from './encode-sse.js';
import { chatDecoder } from './events.js';
import { chatNativeCall } from './request.js';
import { validateChatRequest } from './validate.js';

export const openaiChat = {
  name: 'openai-chat',
  validate: (body) => validateChatRequest(body, { defaultEffortOnAuto: true }),
  upstream: { api: 'chat', encodeRequest: chatNativeCall },
  decoder: chatDecoder,
  keepalive: CHAT_KEEPALIVE,
  sseEncoder: (opts) => new ChatSseEncoder(opts),
  jsonEncoder: chatJsonEncode,
  answerMembers: CHAT_ANSWER_MEMBERS,
  errorEnvelope: (err) => openAiErrorBody(err),
  rateLimitHeaders: OPENAI_RATE_LIMIT_HEADERS,
  requestId: OPENAI_REQUEST_ID,
  conversation: readChatConversation,
} as const satisfies Dialect;
