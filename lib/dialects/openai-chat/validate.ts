// Validation of a `POST /v1/chat/completions` body before any provider work: one hand-written walk,
// no copy. Failures are GatewayErrors naming the exact parameter path (`param`):
// GW_ERR_REQUEST_INVALID (`invalid_request`) for malformed values and unknown parameters (OpenAI
// rejects unknown parameters too), GW_ERR_PARAM_UNSUPPORTED (`unsupported_parameter`) for the
// parameters the spec refuses, GW_ERR_CALL_NAME_INVALID for a bad `metadata.call_name`.
// The result is the CanonicalRequest whose `body` is the input object itself.
import type { CanonicalRequest, JsonValue, RequestNeeds } from '../../chunks.js';
import { invalid } from '../../errors.js';
import { bool, int, isObject, kind, shorten, str } from '../../validate/checks.js';
import { newChatScan, validateMessages } from './validate-messages.js';
import {
  given, normalise, rejectUnsupported, validateIgnored, validateMetadata, validateReasoning, validateSampling,
  type ChatEffort, type ChatReasoning,
} from './validate-params.js';
import { validateResponseFormat, validateToolChoice, validateTools } from './validate-tools.js';

export type { ChatEffort, ChatReasoning } from './validate-params.js';

export interface ChatValidateOptions {
  /** on `gateway-auto` (or a null / omitted model), a request without reasoning settings gets effort `high` */
  defaultEffortOnAuto?: boolean;
}

export const AUTO_MODEL = 'gateway-auto';
export const DEFAULT_AUTO_EFFORT: ChatEffort = 'high';

/** Every top-level parameter the endpoint accepts (some only to reject them with a precise code). */
const TOP_LEVEL: ReadonlySet<string> = new Set([
  'messages', 'model', 'stream', 'stream_options', 'temperature', 'top_p', 'frequency_penalty', 'presence_penalty', 'stop',
  'max_completion_tokens', 'max_tokens', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'reasoning',
  'reasoning_effort', 'metadata',
  // rejected with unsupported_parameter
  'n', 'audio', 'modalities', 'web_search_options', 'functions', 'function_call',
  // accepted and ignored
  'logit_bias', 'logprobs', 'top_logprobs', 'seed', 'prediction', 'store', 'service_tier', 'prompt_cache_key',
  'prompt_cache_retention', 'safety_identifier', 'user', 'verbosity',
]);

/**
 * Deliberate over-estimate of input tokens: one token per two UTF-8 bytes of text-bearing JSON
 * (messages and tools), 16 per message, 1600 per image, one per 100 bytes of audio.
 */
const BYTES_PER_TOKEN = 2;
const TOKENS_PER_MESSAGE = 16;
const TOKENS_PER_IMAGE = 1600;
const AUDIO_BYTES_PER_TOKEN = 100;
const MAX_END_USER_ID = 512;
/** the tool names of a request without tools (only read) */
const NO_TOOLS: ReadonlySet<string> = new Set();

declare module '../../chunks.js' {
  interface ClientFindings {
    /** Chat Completions: the `gateway-auto` default reasoning effort the validator gave (the body is left as sent) */
    chatDefaultEffort?: ChatEffort;
  }
}

/**
 * The request's reasoning settings, normalised: `reasoning` wins over `reasoning_effort`; the
 * `gateway-auto` default effort, when the validator applied it (its findings), is reported with
 * `defaulted: true`. Reads a validated request.
 */
export function chatReasoning(req: Pick<CanonicalRequest, 'body' | 'findings'>): ChatReasoning {
  const out = normalise(req.body);
  const effort = req.findings?.chatDefaultEffort;
  if (effort !== undefined && out.effort === undefined && out.maxTokens === undefined) {
    out.effort = effort;
    out.defaulted = true;
  }
  return out;
}

/** Validate a parsed body. Returns the canonical request (source 'openai-chat'); throws GatewayError naming the parameter. */
export function validateChatRequest(body: JsonValue, opts: ChatValidateOptions = {}): CanonicalRequest {
  if (!isObject(body)) throw invalid('', `The request body must be a JSON object, got ${kind(body)}.`);
  for (const key in body) {
    if (!TOP_LEVEL.has(key)) throw invalid(shorten(key, 80), 'unknown parameter; Chat Completions does not accept it. Remove it');
  }
  rejectUnsupported(body);

  const model = given(body.model) ? str(body.model, 'model', 1) : null;
  const stream = given(body.stream) ? bool(body.stream, 'stream') : false;
  const scan = newChatScan();
  const messageCount = validateMessages(body.messages, scan);

  const names = given(body.tools) ? validateTools(body.tools, scan) : NO_TOOLS;
  if (given(body.tool_choice)) validateToolChoice(body.tool_choice, names);
  if (given(body.parallel_tool_calls)) bool(body.parallel_tool_calls, 'parallel_tool_calls');
  if (given(body.response_format)) validateResponseFormat(body.response_format, scan);

  const maxCompletion = given(body.max_completion_tokens) ? int(body.max_completion_tokens, 'max_completion_tokens', 1) : null;
  const maxLegacy = given(body.max_tokens) ? int(body.max_tokens, 'max_tokens', 1) : null;
  const maxTokens = maxCompletion ?? maxLegacy;
  validateSampling(body);
  validateIgnored(body);
  const callName = given(body.metadata) ? validateMetadata(body.metadata) : undefined;

  const reasoning = validateReasoning(body, maxTokens);
  let defaulted: ChatEffort | undefined;
  if (opts.defaultEffortOnAuto && (model === null || model === AUTO_MODEL) && reasoning.effort === undefined && reasoning.maxTokens === undefined) {
    defaulted = DEFAULT_AUTO_EFFORT;
    reasoning.effort = DEFAULT_AUTO_EFFORT;
  }

  // a Set made empty and added to: from an array it would go through the array's iterator
  const modalities = new Set<'text' | 'image' | 'audio'>().add('text');
  if (scan.images > 0) modalities.add('image');
  if (scan.audioBytes > 0) modalities.add('audio');
  const needs: RequestNeeds = {
    modalities,
    tools: names.size > 0,
    reasoning: reasoning.effort === undefined ? reasoning.maxTokens !== undefined : reasoning.effort !== 'none',
    signedThinking: scan.signedThinking,
  };
  const labels: CanonicalRequest['labels'] = {};
  if (callName !== undefined) labels.callName = callName;
  const endUserId = endUser(body.user) ?? endUser(body.safety_identifier);
  if (endUserId !== undefined) labels.endUserId = endUserId;
  const req: CanonicalRequest = {
    source: 'openai-chat',
    body,
    model,
    stream,
    maxTokens,
    thinkingBudget: reasoning.maxTokens ?? null,
    needs,
    inputTokenBound:
      Math.ceil(scan.bytes / BYTES_PER_TOKEN) +
      TOKENS_PER_MESSAGE * messageCount +
      TOKENS_PER_IMAGE * scan.images +
      Math.ceil(scan.audioBytes / AUDIO_BYTES_PER_TOKEN),
    hostedToolUses: 0,
    labels,
    forward: { betas: [], headers: {} },
  };
  if (defaulted !== undefined) req.findings = { chatDefaultEffort: defaulted };
  return req;
}

/** `user` / `safety_identifier` as an end-user label: a non-blank string of at most 512 characters. */
function endUser(v: JsonValue | undefined): string | undefined {
  return typeof v === 'string' && v.trim() !== '' && v.length <= MAX_END_USER_ID ? v : undefined;
}
