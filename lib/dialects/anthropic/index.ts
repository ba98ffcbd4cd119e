// The Anthropic Messages dialect: client validator, native upstream encoder, upstream decoder,
// client encoders, error envelope, rate-limit names and request-id rule (the Dialect interface,
// ../dialect.ts). Reached through the registry (../index.ts) only.
import type { GatewayError } from '../../errors.js';
import type { Dialect } from '../dialect.js';
import { readMessagesConversation } from './conversation.js';
import { anthropicJsonEncode } from './encode-json.js';
import { ANTHROPIC_KEEPALIVE, AnthropicSseEncoder } from './encode-sse.js';
import { anthropicErrorBody } from './errors.js';
import { messagesGatewayInfo } from './gateway.js';
import { anthropicDecoder } from './hosted-search.js';
import { createSealer } from '../../search/seal.js';
import { anthropicNative } from './request.js';
import { validateMessagesRequest } from './validate.js';
import { MESSAGES_ANSWER_MEMBERS, messagesDiagnostics } from './diagnostics.js';
import { anthropicSearchTurns } from './search-turns.js';

const UPSTREAM_CODES = new Set(['GW_ERR_UPSTREAM', 'GW_ERR_UPSTREAM_RATE_LIMITED', 'GW_ERR_UPSTREAM_OVERLOADED', 'GW_ERR_PROVIDER_UNAVAILABLE']);

/** The HTTP status a Messages client sees: canonical upstream errors keep the provider's status. */
function anthropicStatus(err: GatewayError): number {
  if (err.upstream && UPSTREAM_CODES.has(err.code)) return err.upstream.status;
  return err.status;
}


export const anthropic = {
  name: 'anthropic',
  // the endpoint's header hook validated the `anthropic-*` headers into ctx.anthropic
  validate: (body, ctx, opts) => validateMessagesRequest(body, ctx.anthropic!, {
    betas: ctx.anthropic!.betas,
    countTokens: opts?.countTokens ?? false,
    sealer: createSealer(ctx.config.webSearch?.sealKey),
    // an advisor tool names a catalog model flagged `advisor` (decisions §10)
    isAdvisorModel: (id) => {
      const model = ctx.services.catalog.resolve(id)?.model;
      return model?.advisor ? { maxOutputTokens: model.maxOutputTokens } : null;
    },
  }),
  upstream: { api: 'messages', encodeRequest: anthropicNative },
  // one per response: it pairs hosted search calls with their results to charge them (hosted-search.ts)
  decoder: anthropicDecoder,
  keepalive: ANTHROPIC_KEEPALIVE,
  sseEncoder: (opts) => new AnthropicSseEncoder({ gateway: messagesGatewayInfo(opts.input), diagnostics: messagesDiagnostics(opts.input), clientModel: opts.clientModel, requestId: opts.requestId, sealer: opts.input.sealer }),
  jsonEncoder: (input, opts) => anthropicJsonEncode(input, { gatewayInfo: messagesGatewayInfo, diagnostics: messagesDiagnostics, ...opts }),
  answerMembers: MESSAGES_ANSWER_MEMBERS,
  errorEnvelope: (err, requestId) => ({ status: anthropicStatus(err), body: anthropicErrorBody(err, requestId) }),
  rateLimitHeaders: {
    requestsLimit: 'anthropic-ratelimit-requests-limit',
    requestsRemaining: 'anthropic-ratelimit-requests-remaining',
    requestsReset: 'anthropic-ratelimit-requests-reset',
    tokensLimit: 'anthropic-ratelimit-tokens-limit',
    tokensRemaining: 'anthropic-ratelimit-tokens-remaining',
    tokensReset: 'anthropic-ratelimit-tokens-reset',
    reset: 'instant',
  },
  // a Messages client sees the id of the Anthropic upstream that answered, ours in x-gateway-request-id
  requestId: { header: 'request-id', upstreamProtocol: 'anthropic' },
  conversation: readMessagesConversation,
  searchTurns: anthropicSearchTurns,
} as const satisfies Dialect;

// the Messages endpoints' header and query checks (hooks in lib/endpoints.ts, before the body)
export { validateMessagesHeaders, validateMessagesQuery, type MessagesHeaderInfo } from './headers.js';
