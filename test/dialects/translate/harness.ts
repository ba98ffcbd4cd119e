// Shared by the translate/*.test.ts files: hand-built RoutedRequests, the two deployments, runners
// that validate the input in its own dialect and the output in the other one, and error capture.
import type { CanonicalRequest, Deployment, DialectName, JsonObject, JsonValue, RoutedRequest } from '../../../lib/chunks.js';
import { BETA } from '../../../lib/dialects/anthropic/betas.js';
import { validateMessagesRequest } from '../../../lib/dialects/anthropic/validate.js';
import { chatToAnthropic } from '../../../lib/translate/chat-to-messages.js';
import { anthropicToChat } from '../../../lib/translate/messages-to-chat.js';
import { validateChatRequest } from '../../../lib/dialects/openai-chat/validate.js';
import type { UpstreamCall } from '../../../lib/dialects/index.js';
import { GatewayError } from '../../../lib/errors.js';

export const CHAT_DEPLOYMENT: Deployment = { providerId: 'openai', protocol: 'openai', api: 'chat', upstreamModel: 'gpt-5-up' };
export const MESSAGES_DEPLOYMENT: Deployment = {
  providerId: 'anthropic', protocol: 'anthropic', api: 'messages', upstreamModel: 'claude-opus-5-up',
};
/** every gating beta, so any valid Messages body passes the input validation */
export const ALL_BETAS: string[] = Object.values(BETA);

export interface RouteOptions {
  modelId?: string;
  /** capped max tokens; default: the body's value */
  maxTokens?: number | null;
  modelMaxOutputTokens?: number;
  thinkingBudget?: number | null;
  routed?: boolean;
}

export function routedFor(source: DialectName, body: JsonObject, opts: RouteOptions = {}): RoutedRequest {
  const own =
    source === 'anthropic' ? body.max_tokens : body.max_completion_tokens ?? body.max_tokens;
  const maxTokens = opts.maxTokens !== undefined ? opts.maxTokens : typeof own === 'number' ? own : null;
  const request: CanonicalRequest = {
    source,
    body,
    model: typeof body.model === 'string' ? body.model : null,
    stream: body.stream === true,
    maxTokens,
    needs: { modalities: new Set(['text']), tools: false, reasoning: false, signedThinking: false },
    inputTokenBound: 1000,
    hostedToolUses: 0,
    labels: {},
    forward: { betas: ['some-beta-2026-01-01'], headers: { 'anthropic-foo': 'bar' } },
  };
  const modelId = opts.modelId ?? (source === 'anthropic' ? 'openai/gpt-5' : 'anthropic/claude-opus-5');
  return {
    request,
    modelId,
    deployments: [source === 'anthropic' ? CHAT_DEPLOYMENT : MESSAGES_DEPLOYMENT],
    routed: opts.routed ?? false,
    routingLatencyMs: null,
    maxTokens,
    modelMaxOutputTokens: opts.modelMaxOutputTokens ?? 64000,
    modelReasoning: true,
    maxTokensCappedTo: null,
    thinkingBudget: opts.thinkingBudget ?? null,
  };
}

/** Validates a Messages body as the gateway would (all gating betas on); throws its GatewayError. */
export function validMessages(body: JsonValue, betas: string[] = ALL_BETAS): CanonicalRequest {
  return validateMessagesRequest(body, { version: '2023-06-01', betas, sessionId: undefined, forward: {} }, { betas });
}

/** Messages body (validated first) → the upstream Chat call; its body must pass the Chat validator. */
export function chatCall(body: JsonObject, opts: RouteOptions = {}): UpstreamCall {
  validMessages(body);
  const call = anthropicToChat(routedFor('anthropic', body, opts), CHAT_DEPLOYMENT);
  validateChatRequest(JSON.parse(call.body) as JsonValue);
  return call;
}

export function toChat(body: JsonObject, opts: RouteOptions = {}): JsonObject {
  return JSON.parse(chatCall(body, opts).body) as JsonObject;
}

/**
 * Chat body (validated first, with the `gateway-auto` default effort when `opts.routed`) → the
 * upstream Messages call; its body must pass the Messages validator (no betas).
 */
export function messagesCall(body: JsonObject, opts: RouteOptions = {}): UpstreamCall {
  const validated = validateChatRequest(body, { defaultEffortOnAuto: opts.routed === true });
  return rawMessagesCall(body, opts, validated.findings);
}

/** The same without validating the input: for the translator's own checks behind the validator. */
export function rawMessagesCall(body: JsonObject, opts: RouteOptions = {}, findings?: CanonicalRequest['findings']): UpstreamCall {
  const routed = routedFor('openai-chat', body, opts);
  // what the validator found travels with the request
  if (findings !== undefined) routed.request.findings = findings;
  const call = chatToAnthropic(routed, MESSAGES_DEPLOYMENT);
  validMessages(JSON.parse(call.body) as JsonValue, []);
  return call;
}

export function toMessages(body: JsonObject, opts: RouteOptions = {}): JsonObject {
  return JSON.parse(messagesCall(body, opts).body) as JsonObject;
}

/** The GatewayError `fn` throws. */
export function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (GatewayError.is(err)) return err;
    throw err;
  }
  throw new Error('expected a GatewayError, nothing was thrown');
}

export function msg(model = 'claude-opus-5'): JsonObject {
  return { model, max_tokens: 1000, messages: [{ role: 'user', content: 'hi' }] };
}

export function chat(extra: JsonObject = {}): JsonObject {
  return { model: 'anthropic/claude-opus-5', messages: [{ role: 'user', content: 'hi' }], ...extra };
}
