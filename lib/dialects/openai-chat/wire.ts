// Shared pieces of the upstream side of the Chat Completions wire format: strict parsing, field
// checks, finish_reason and usage → canonical, and an in-band `{error: {...}}` → GatewayError.
// Used by the stream decoder (events.ts) and the non-streaming decoder (message.ts).
import type { CanonicalBlock, JsonObject, JsonValue, NativeFrame, StopReason, Usage } from '../../chunks.js';
import type { GatewayError } from '../../errors.js';
import { inBandUpstream, type InBandCode } from '../../errors/index.js';
import { integrityError, isObject } from '../../json/upstream.js';

export { integrityError, isObject, parseObject, optionalString } from '../../json/upstream.js';

export function chatFrame(event: string, data: string, parsed: JsonObject): NativeFrame {
  return { dialect: 'openai-chat', event, data, parsed };
}

export function indexOf(obj: JsonObject, where: string): number {
  const value = obj.index;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw integrityError(`${where}.index must be a non-negative integer`);
  return value;
}

/** A tool call's block; `extra` is the call's opaque `extra_content` object, when it carries one (F24). */
export function toolCallBlock(id: string, name: string, extra: JsonValue | undefined): CanonicalBlock {
  return isObject(extra) ? { kind: 'tool-call', id, name, input: null, extra } : { kind: 'tool-call', id, name, input: null };
}

/**
 * `finish_reason` → StopReason; undefined while the choice has none. Unknown values are kept as `other`.
 * A switch, not a lookup in a table: the reason is a string read from the frame (not internalized),
 * which a keyed lookup must first find in the string table; each call returns a new object.
 */
export function finishFromWire(reason: JsonValue | undefined, where: string): StopReason | undefined {
  if (reason === undefined || reason === null) return undefined;
  if (typeof reason !== 'string') throw integrityError(`${where}.finish_reason must be a string or null`);
  switch (reason) {
    case 'stop':
      return { kind: 'end' };
    case 'length':
      return { kind: 'length' };
    case 'tool_calls':
    case 'function_call':
      return { kind: 'tool-calls' };
    case 'content_filter':
      return { kind: 'content-filter' };
    default:
      return { kind: 'other', value: reason };
  }
}

/**
 * The stop reason of a turn that made tool calls. OpenAI-compatible upstreams (Azure, vLLM, many
 * others) end such turns with `finish_reason: "stop"`; copied as is, Claude Code reads `end_turn`
 * and never runs the tool (FAILURE-MODES F4). A turn with complete calls that ended on its own is
 * a tool-call turn; any other reason (length, content filter) stays what it was.
 */
export function stopWithCalls(stop: StopReason, calls: number): StopReason {
  return calls > 0 && stop.kind === 'end' ? { kind: 'tool-calls' } : stop;
}

/** a count: `value` is the member `key` of an object at `where` (read by the caller, by name: no keyed load) */
function tokens(value: JsonValue | undefined, key: string, where: string, required: boolean): number {
  if ((value === undefined || value === null) && !required) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw integrityError(`${where}.${key} must be a non-negative integer`);
  }
  return value;
}

function details(value: JsonValue | undefined, key: string, where: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw integrityError(`${where}.${key} must be an object`);
  return value;
}

/**
 * OpenAI usage → canonical. `prompt_tokens` INCLUDES cached tokens (canonical `input` excludes
 * them); `completion_tokens` includes reasoning tokens, as canonical `output` does. The members are
 * read by name (one load each, not a keyed load by a key passed in); the checks and their order
 * are the same.
 */
export function usageFromWire(usage: JsonObject, where: string): Usage {
  const prompt = tokens(usage.prompt_tokens, 'prompt_tokens', where, true);
  const completion = tokens(usage.completion_tokens, 'completion_tokens', where, true);
  const promptDetails = details(usage.prompt_tokens_details, 'prompt_tokens_details', where);
  const cached = tokens(promptDetails?.cached_tokens, 'cached_tokens', `${where}.prompt_tokens_details`, false);
  const completionDetails = details(usage.completion_tokens_details, 'completion_tokens_details', where);
  const reasoning = tokens(completionDetails?.reasoning_tokens, 'reasoning_tokens', `${where}.completion_tokens_details`, false);
  if (cached > prompt) throw integrityError(`${where}: cached_tokens (${cached}) exceed prompt_tokens (${prompt})`);
  if (reasoning > completion) throw integrityError(`${where}: reasoning_tokens (${reasoning}) exceed completion_tokens (${completion})`);
  return { input: prompt - cached, output: completion, cacheRead: cached, cacheWrite: 0, reasoning, webSearches: 0 };
}

/** Upstream error code (or type) → gateway code and the HTTP status it stands for. */
const FROM_CODE: Record<string, { code: InBandCode; status: number }> = {
  rate_limit_exceeded: { code: 'GW_ERR_UPSTREAM_RATE_LIMITED', status: 429 },
  rate_limit_error: { code: 'GW_ERR_UPSTREAM_RATE_LIMITED', status: 429 },
  server_is_overloaded: { code: 'GW_ERR_UPSTREAM_OVERLOADED', status: 503 },
  overloaded_error: { code: 'GW_ERR_UPSTREAM_OVERLOADED', status: 529 },
  timeout: { code: 'GW_ERR_UPSTREAM_TIMEOUT', status: 504 },
  invalid_request_error: { code: 'GW_ERR_UPSTREAM', status: 400 },
};

/** An in-band `{error: {message, type, code, param}}` chunk after HTTP 200 as a GatewayError. */
export function errorFromWire(error: JsonObject): GatewayError {
  const message = typeof error.message === 'string' ? error.message : 'The provider reported an error.';
  const type = typeof error.code === 'string' ? error.code : typeof error.type === 'string' ? error.type : undefined;
  const known = (type !== undefined && Object.hasOwn(FROM_CODE, type) ? FROM_CODE[type] : undefined) ??
    (typeof error.type === 'string' && Object.hasOwn(FROM_CODE, error.type) ? FROM_CODE[error.type] : undefined) ??
    { code: 'GW_ERR_UPSTREAM' as const, status: 500 };
  return inBandUpstream(known.code, type === undefined ? { protocol: 'openai', status: known.status, message } : { protocol: 'openai', status: known.status, type, message });
}
