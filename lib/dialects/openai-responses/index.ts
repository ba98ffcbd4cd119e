// The OpenAI Responses dialect (the Dialect interface, ../dialect.ts). Reached through the registry
// (../index.ts) only. Error envelope, rate-limit names and the request-id header are the OpenAI
// platform's, shared with the other OpenAI dialects (lib/openai/).
import { openAiErrorBody } from '../../openai/errors.js';
import { OPENAI_RATE_LIMIT_HEADERS, OPENAI_REQUEST_ID } from '../../openai/headers.js';
import type { Dialect } from '../dialect.js';
import { RESPONSES_KEEPALIVE, ResponsesSseEncoder, responsesJsonEncode } from './client-encode.js';
import { validateResponsesRequest } from './client-validate.js';
import { readResponsesConversation } from './conversation.js';
import { responsesDecoder } from './events.js';
import { responsesNative } from './request.js';
import { responsesSearchTurns } from './search-turns.js';

export const openaiResponses = {
  name: 'openai-responses',
  validate: (body) => validateResponsesRequest(body, { defaultEffortOnAuto: true }),
  upstream: { api: 'responses', encodeRequest: responsesNative },
  decoder: responsesDecoder,
  keepalive: RESPONSES_KEEPALIVE,
  sseEncoder: (opts) => new ResponsesSseEncoder(opts),
  jsonEncoder: responsesJsonEncode,
  errorEnvelope: (err) => openAiErrorBody(err),
  rateLimitHeaders: OPENAI_RATE_LIMIT_HEADERS,
  requestId: OPENAI_REQUEST_ID,
  conversation: readResponsesConversation,
  searchTurns: responsesSearchTurns,
} as const satisfies Dialect;
