// OpenAI-style error envelope `{error: {code, message, param?}}` used by Chat Completions,
// Responses, transcriptions and the model list without `anthropic-version`.
import type { ErrorCode, GatewayError } from '../errors.js';
import { isContextOverflow } from '../errors/context-overflow.js';

interface OpenAiMapping {
  code: string;
  /** status override; undefined keeps the error's own status */
  status?: number;
}

const FAILED_OVER: Required<OpenAiMapping> = { code: 'provider_unavailable', status: 503 };

export const openAiErrorCodes = {
  GW_ERR_BODY_INVALID_JSON: { code: 'invalid_request' },
  GW_ERR_BODY_TOO_LARGE: { code: 'request_too_large' },
  GW_ERR_CONTENT_TYPE_INVALID: { code: 'invalid_request' },
  GW_ERR_REQUEST_INVALID: { code: 'invalid_request' },
  GW_ERR_HEADER_INVALID: { code: 'invalid_request' },
  GW_ERR_QUERY_INVALID: { code: 'invalid_request' },
  GW_ERR_CAPABILITY_REJECTED: { code: 'unsupported_parameter' },
  GW_ERR_PARAM_UNSUPPORTED: { code: 'unsupported_parameter' },
  GW_ERR_MODEL_UNKNOWN: { code: 'invalid_model' },
  GW_ERR_MODALITY_UNSUPPORTED: { code: 'unsupported_modality' },
  GW_ERR_CALL_NAME_INVALID: { code: 'invalid_call_name' },
  GW_ERR_END_USER_ID_INVALID: { code: 'invalid_end_user_id' },
  GW_ERR_FILE_FORMAT_INVALID: { code: 'invalid_file_format' },
  GW_ERR_FILE_TOO_LARGE: { code: 'file_too_large' },
  GW_ERR_RESPONSE_FORMAT_UNSUPPORTED: { code: 'unsupported_response_format' },
  GW_ERR_STORED_RESPONSES_UNSUPPORTED: { code: 'invalid_request' },
  GW_ERR_AUTH_MISSING: { code: 'unauthorized' },
  GW_ERR_AUTH_INVALID: { code: 'unauthorized' },
  GW_ERR_AUTH_CONFLICT: { code: 'unauthorized' },
  GW_ERR_CREDITS_INSUFFICIENT: { code: 'insufficient_credits' },
  GW_ERR_SPEND_CAP_EXCEEDED: { code: 'spend_cap_exceeded' },
  GW_ERR_SCOPE_DENIED: { code: 'endpoint_not_allowed' },
  GW_ERR_MODEL_NOT_ALLOWED: { code: 'model_not_allowed' },
  GW_ERR_PERMISSION_DENIED: { code: 'permission_denied' },
  GW_ERR_NOT_FOUND: { code: 'not_found' },
  GW_ERR_COUNT_TOKENS_UNAVAILABLE: { code: 'not_found' },
  GW_ERR_METHOD_NOT_ALLOWED: { code: 'method_not_allowed' },
  GW_ERR_CONFLICT: { code: 'conflict' },
  GW_ERR_REQUEST_TIMEOUT: { code: 'request_timeout' },
  GW_ERR_HEADERS_TOO_LARGE: { code: 'request_headers_too_large' },
  GW_ERR_RATE_LIMITED: { code: 'rate_limit_exceeded' },
  GW_ERR_UPSTREAM: FAILED_OVER, // by the provider's status: upstreamMapping below
  GW_ERR_UPSTREAM_RATE_LIMITED: FAILED_OVER,
  GW_ERR_UPSTREAM_OVERLOADED: FAILED_OVER,
  GW_ERR_UPSTREAM_TIMEOUT: FAILED_OVER,
  GW_ERR_PROVIDER_UNAVAILABLE: FAILED_OVER,
  // the spec's OpenAI-style table has no 502: a provider answer that broke a rule is its
  // `500 internal_error` (the Messages table files integrity failures under 500/502 `api_error`)
  GW_ERR_INTEGRITY: { code: 'internal_error', status: 500 },
  GW_ERR_STREAM_IDLE: FAILED_OVER,
  GW_ERR_CLIENT_CLOSED: { code: 'internal_error' },
  GW_ERR_CONFIG_INVALID: { code: 'internal_error', status: 500 },
  GW_ERR_UNAVAILABLE: { code: 'service_unavailable', status: 503 },
  GW_ERR_INTERNAL: { code: 'internal_error', status: 500 },
} as const satisfies Record<ErrorCode, OpenAiMapping>;

/**
 * A provider error that reaches an OpenAI-style client, as a row of the spec's table: a request the
 * provider refused as malformed is the client's 400 `invalid_request` (404: the spec's 400
 * `invalid_model`; 413 as the gateway's own size limit); anything else (5xx, a lost connection, the
 * provider refusing the gateway's credentials, an in-stream provider error) means the configured
 * providers failed: 503 `provider_unavailable` (no `provider_error` or 502 in the spec's table).
 */
function upstreamMapping(status: number): Required<OpenAiMapping> {
  if (status === 400 || status === 422) return { status: 400, code: 'invalid_request' };
  if (status === 404) return { status: 400, code: 'invalid_model' };
  if (status === 413) return { status: 413, code: 'request_too_large' };
  return FAILED_OVER;
}

export function openAiError(err: GatewayError): { status: number; code: string; message: string; param?: string } {
  // a provider's context overflow, in any provider's words: the code OpenCode and Codex compact on (F57)
  if (err.code === 'GW_ERR_UPSTREAM' && isContextOverflow(err.upstream)) return { status: 400, code: 'context_length_exceeded', message: err.message };
  const mapping: OpenAiMapping = err.code === 'GW_ERR_UPSTREAM' ? upstreamMapping(err.status) : openAiErrorCodes[err.code];
  const status = mapping.status ?? err.status;
  const code = mapping.code;
  const out: { status: number; code: string; message: string; param?: string } = { status, code, message: err.message };
  if (err.param !== undefined) out.param = err.param;
  return out;
}

export function openAiErrorBody(err: GatewayError): { status: number; body: string } {
  const { status, ...error } = openAiError(err);
  return { status, body: JSON.stringify({ error }) };
}
