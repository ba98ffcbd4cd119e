// Messages-dialect error envelope: every gateway error code → the Messages `error.type`, the JSON
// body `{type: "error", error: {type, message}, request_id}` (HTTP body and SSE `error` frame data),
// and the reverse direction for in-band upstream `error` events.
import type { ErrorCode, GatewayError } from '../../errors.js';
import { anthropicOverflowMessage, isContextOverflow } from '../../errors/context-overflow.js';
import { inBandUpstream, type InBandCode } from '../../errors/index.js';

export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'overloaded_error'
  | 'timeout_error';

/** One line per code; an unmapped code breaks the build. */
export const anthropicErrorType = {
  GW_ERR_BODY_INVALID_JSON: 'invalid_request_error',
  GW_ERR_BODY_TOO_LARGE: 'request_too_large',
  GW_ERR_CONTENT_TYPE_INVALID: 'invalid_request_error',
  GW_ERR_REQUEST_INVALID: 'invalid_request_error',
  GW_ERR_HEADER_INVALID: 'invalid_request_error',
  GW_ERR_QUERY_INVALID: 'invalid_request_error',
  GW_ERR_CAPABILITY_REJECTED: 'invalid_request_error',
  GW_ERR_PARAM_UNSUPPORTED: 'invalid_request_error',
  GW_ERR_MODEL_UNKNOWN: 'invalid_request_error',
  GW_ERR_MODALITY_UNSUPPORTED: 'invalid_request_error',
  GW_ERR_CALL_NAME_INVALID: 'invalid_request_error',
  GW_ERR_END_USER_ID_INVALID: 'invalid_request_error',
  GW_ERR_FILE_FORMAT_INVALID: 'invalid_request_error',
  GW_ERR_FILE_TOO_LARGE: 'invalid_request_error',
  GW_ERR_RESPONSE_FORMAT_UNSUPPORTED: 'invalid_request_error',
  GW_ERR_STORED_RESPONSES_UNSUPPORTED: 'invalid_request_error',
  GW_ERR_AUTH_MISSING: 'authentication_error',
  GW_ERR_AUTH_INVALID: 'authentication_error',
  GW_ERR_AUTH_CONFLICT: 'authentication_error',
  GW_ERR_CREDITS_INSUFFICIENT: 'billing_error',
  GW_ERR_SPEND_CAP_EXCEEDED: 'billing_error',
  GW_ERR_SCOPE_DENIED: 'permission_error',
  GW_ERR_MODEL_NOT_ALLOWED: 'permission_error',
  GW_ERR_PERMISSION_DENIED: 'permission_error',
  GW_ERR_NOT_FOUND: 'not_found_error',
  GW_ERR_COUNT_TOKENS_UNAVAILABLE: 'not_found_error',
  GW_ERR_METHOD_NOT_ALLOWED: 'invalid_request_error',
  GW_ERR_CONFLICT: 'invalid_request_error',
  GW_ERR_REQUEST_TIMEOUT: 'invalid_request_error',
  GW_ERR_HEADERS_TOO_LARGE: 'invalid_request_error',
  GW_ERR_RATE_LIMITED: 'rate_limit_error',
  GW_ERR_UPSTREAM: 'api_error',
  GW_ERR_UPSTREAM_RATE_LIMITED: 'rate_limit_error',
  GW_ERR_UPSTREAM_OVERLOADED: 'overloaded_error',
  GW_ERR_UPSTREAM_TIMEOUT: 'timeout_error',
  GW_ERR_PROVIDER_UNAVAILABLE: 'overloaded_error',
  GW_ERR_INTEGRITY: 'api_error',
  GW_ERR_STREAM_IDLE: 'timeout_error',
  GW_ERR_CLIENT_CLOSED: 'api_error',
  GW_ERR_CONFIG_INVALID: 'api_error',
  GW_ERR_UNAVAILABLE: 'api_error',
  GW_ERR_INTERNAL: 'api_error',
} as const satisfies Record<ErrorCode, AnthropicErrorType>;

const UPSTREAM_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'GW_ERR_UPSTREAM',
  'GW_ERR_UPSTREAM_RATE_LIMITED',
  'GW_ERR_UPSTREAM_OVERLOADED',
  'GW_ERR_UPSTREAM_TIMEOUT',
  'GW_ERR_PROVIDER_UNAVAILABLE',
]);

/**
 * The spec's Messages table: the `error.type` each status stands for. An OpenAI upstream's error
 * keeps its status for a Messages client, so its type must be the one that status documents (a
 * provider 400 was `400 api_error`, a 500 `500 overloaded_error`: pairs outside the table).
 */
const TYPE_FOR_STATUS: Readonly<Record<number, AnthropicErrorType>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** `error.type` and `error.message` for a client: an Anthropic upstream's own words are kept. */
export function anthropicError(err: GatewayError): { type: string; message: string } {
  const up = err.upstream;
  if (up !== undefined && UPSTREAM_CODES.has(err.code)) {
    if (up.protocol === 'anthropic' && up.type !== undefined) return { type: up.type, message: up.message };
    if (isContextOverflow(up)) return { type: 'invalid_request_error', message: anthropicOverflowMessage(up.message) };
    const type = TYPE_FOR_STATUS[up.status];
    if (type !== undefined) return { type, message: err.message };
  }
  return { type: anthropicErrorType[err.code], message: err.message };
}

export function anthropicErrorBody(err: GatewayError, requestId: string): string {
  return JSON.stringify({ type: 'error', error: anthropicError(err), request_id: requestId });
}

/** Upstream error type → gateway code and the HTTP status that type stands for. */
const FROM_TYPE: Record<string, { code: InBandCode; status: number }> = {
  invalid_request_error: { code: 'GW_ERR_UPSTREAM', status: 400 },
  authentication_error: { code: 'GW_ERR_UPSTREAM', status: 401 },
  billing_error: { code: 'GW_ERR_UPSTREAM', status: 402 },
  permission_error: { code: 'GW_ERR_UPSTREAM', status: 403 },
  not_found_error: { code: 'GW_ERR_UPSTREAM', status: 404 },
  request_too_large: { code: 'GW_ERR_UPSTREAM', status: 413 },
  rate_limit_error: { code: 'GW_ERR_UPSTREAM_RATE_LIMITED', status: 429 },
  api_error: { code: 'GW_ERR_UPSTREAM', status: 500 },
  timeout_error: { code: 'GW_ERR_UPSTREAM_TIMEOUT', status: 504 },
  overloaded_error: { code: 'GW_ERR_UPSTREAM_OVERLOADED', status: 529 },
};

/**
 * An in-band upstream `error` event as a GatewayError. The upstream type and message are kept in
 * `upstream`, so a Messages client receives them unchanged; `upstream.status` is the status the
 * error type stands for (the HTTP status of the stream itself was 200).
 */
export function errorFromAnthropic(type: string, message: string, requestId?: string): GatewayError {
  const known = Object.hasOwn(FROM_TYPE, type) ? FROM_TYPE[type]! : { code: 'GW_ERR_UPSTREAM' as const, status: 500 };
  return inBandUpstream(known.code, requestId === undefined
    ? { protocol: 'anthropic', status: known.status, type, message }
    : { protocol: 'anthropic', status: known.status, type, message, requestId });
}
