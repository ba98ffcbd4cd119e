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

/**
 * What the Responses encoders read of the request's body (the Dialect's `answerMembers`): the
 * members the writer's `response()` echoes (client-encode-writer.ts), not `input` (the
 * conversation). The tools and reasoning facts come from the validator's findings, kept whole.
 */
const RESPONSES_ANSWER_MEMBERS: readonly string[] = [
  'instructions', 'max_output_tokens', 'max_tool_calls', 'parallel_tool_calls', 'prompt_cache_key', 'safety_identifier', 'temperature',
  'text', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'user', 'metadata',
];

export const openaiResponses = {
  name: 'openai-responses',
  validate: (body) => validateResponsesRequest(body, { defaultEffortOnAuto: true }),
  upstream: { api: 'responses', encodeRequest: responsesNative },
  decoder: responsesDecoder,
  keepalive: RESPONSES_KEEPALIVE,
  sseEncoder: (opts) => new ResponsesSseEncoder(opts),
  jsonEncoder: responsesJsonEncode,
  answerMembers: RESPONSES_ANSWER_MEMBERS,
  errorEnvelope: (err) => openAiErrorBody(err),
  rateLimitHeaders: OPENAI_RATE_LIMIT_HEADERS,
  requestId: OPENAI_REQUEST_ID,
  conversation: readResponsesConversation,
  searchTurns: responsesSearchTurns,
} as const satisfies Dialect;
