// Shared pieces of the upstream side of the Responses wire format: native frames, field checks,
// usage and the stop reason of a finished Response object, and in-band errors → GatewayError.
// Strict parsing and integrity errors: lib/json/upstream.ts.
import type { JsonObject, JsonValue, NativeFrame, StopReason, Usage } from '../../chunks.js';
import type { GatewayError } from '../../errors.js';
import { inBandUpstream } from '../../errors/index.js';
import { integrityError, isObject, optionalString } from '../../json/upstream.js';

export { integrityError, isObject, parseObject, optionalString } from '../../json/upstream.js';

export function responsesFrame(event: string, data: string, parsed: JsonObject): NativeFrame {
  return { dialect: 'openai-responses', event, data, parsed };
}

export function requireObject(obj: JsonObject, key: string, where: string): JsonObject {
  const value = obj[key];
  if (!isObject(value)) throw integrityError(`${where}.${key} must be an object`);
  return value;
}

export function requireString(obj: JsonObject, key: string, where: string): string {
  const value = obj[key];
  if (typeof value !== 'string' || value === '') throw integrityError(`${where}.${key} must be a non-empty string`);
  return value;
}

export function outputIndex(obj: JsonObject, where: string): number {
  const value = obj.output_index;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw integrityError(`${where}.output_index must be a non-negative integer`);
  return value;
}

function tokens(obj: JsonObject | undefined, key: string, where: string, required: boolean): number {
  const value = obj?.[key];
  if ((value === undefined || value === null) && !required) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw integrityError(`${where}.${key} must be a non-negative integer`);
  return value;
}

function details(usage: JsonObject, key: string, where: string): JsonObject | undefined {
  const value = usage[key];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw integrityError(`${where}.${key} must be an object`);
  return value;
}

/**
 * Responses usage → canonical. `input_tokens` INCLUDES cache reads (`cached_tokens`) and cache
 * writes (`cache_write_tokens`, when reported); canonical `input` excludes both. `output_tokens`
 * includes `reasoning_tokens`, as canonical `output` does.
 */
export function usageFromResponse(response: JsonObject, webSearches: number, where: string): Usage {
  const usage = response.usage;
  if (!isObject(usage)) throw integrityError(`${where}.usage is missing: nothing could be billed`);
  const at = `${where}.usage`;
  const input = tokens(usage, 'input_tokens', at, true);
  const output = tokens(usage, 'output_tokens', at, true);
  const inDetails = details(usage, 'input_tokens_details', at);
  const cacheRead = tokens(inDetails, 'cached_tokens', `${at}.input_tokens_details`, false);
  const cacheWrite = tokens(inDetails, 'cache_write_tokens', `${at}.input_tokens_details`, false);
  const reasoning = tokens(details(usage, 'output_tokens_details', at), 'reasoning_tokens', `${at}.output_tokens_details`, false);
  if (cacheRead + cacheWrite > input) throw integrityError(`${at}: cached tokens (${cacheRead + cacheWrite}) exceed input_tokens (${input})`);
  if (reasoning > output) throw integrityError(`${at}: reasoning_tokens (${reasoning}) exceed output_tokens (${output})`);
  return { input: input - cacheRead - cacheWrite, output, cacheRead, cacheWrite, reasoning, webSearches };
}

const INCOMPLETE: Record<string, StopReason> = {
  max_output_tokens: { kind: 'length' },
  content_filter: { kind: 'content-filter' },
};

/**
 * The stop reason of a finished Response: `completed` → end (tool-calls when a function call was
 * produced); `incomplete` → by `incomplete_details.reason` (unknown reasons kept as `other`).
 */
export function stopFromResponse(response: JsonObject, status: 'completed' | 'incomplete', toolCalls: boolean, where: string): StopReason {
  if (status === 'completed') return toolCalls ? { kind: 'tool-calls' } : { kind: 'end' };
  const inc = response.incomplete_details;
  const reason = isObject(inc) ? optionalString(inc, 'reason', `${where}.incomplete_details`) : undefined;
  if (reason === undefined) return { kind: 'other', value: 'incomplete' };
  return Object.hasOwn(INCOMPLETE, reason) ? { ...INCOMPLETE[reason]! } : { kind: 'other', value: reason };
}

/** The HTTP status an in-band error code stands for (the stream itself was a 200). */
const STATUS_OF_CODE: Record<string, number> = {
  insufficient_quota: 429,
  rate_limit_exceeded: 429,
  server_error: 500,
  invalid_prompt: 400,
  invalid_request_error: 400,
  context_length_exceeded: 400,
  vector_store_timeout: 504,
};

/**
 * An in-band error (`error` event, `response.failed` → `response.error`, a failed Response
 * object) → GW_ERR_UPSTREAM (502) keeping the provider's code and words in `upstream`.
 * Both `{code, message}` and the nested `{error: {type, code, message}}` shapes are read.
 */
export function errorFromResponses(value: JsonValue | undefined): GatewayError {
  const e = isObject(value) ? (isObject(value.error) ? value.error : value) : {};
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : 'The provider reported an error during generation.';
  const type = typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : undefined;
  const status = type !== undefined && Object.hasOwn(STATUS_OF_CODE, type) ? STATUS_OF_CODE[type]! : 502;
  return inBandUpstream('GW_ERR_UPSTREAM', type === undefined ? { protocol: 'openai', status, message } : { protocol: 'openai', status, type, message });
}
