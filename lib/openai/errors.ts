// OpenAI-style error envelope `{error: {code, message, param?}}` used by Chat Completions,
// Responses, transcriptions and the model list without `anthropic-version`.
import type { ErrorCode, GatewayError } from '../errors.js';

interface OpenAiMapping {
  code: string;
  /** status override; undefined keeps the error's own status */
  status?: number;
}

const FAILED_OVER: OpenAiMapping = { code: 'provider_unavailable', status: 503 };

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
  GW_ERR_REQUEST_TIMEOUT: { code: 'request_timeout' },
  GW_ERR_HEADERS_TOO_LARGE: { code: 'request_headers_too_large' },
  GW_ERR_RATE_LIMITED: { code: 'rate_limit_exceeded' },
  GW_ERR_UPSTREAM: { code: 'provider_error' },
  GW_ERR_UPSTREAM_RATE_LIMITED: FAILED_OVER,
  GW_ERR_UPSTREAM_OVERLOADED: FAILED_OVER,
  GW_ERR_UPSTREAM_TIMEOUT: FAILED_OVER,
  GW_ERR_PROVIDER_UNAVAILABLE: FAILED_OVER,
  GW_ERR_INTEGRITY: { code: 'internal_error', status: 502 },
  GW_ERR_STREAM_IDLE: FAILED_OVER,
  GW_ERR_CLIENT_CLOSED: { code: 'internal_error' },
  GW_ERR_CONFIG_INVALID: { code: 'internal_error', status: 500 },
  GW_ERR_UNAVAILABLE: { code: 'service_unavailable', status: 503 },
  GW_ERR_INTERNAL: { code: 'internal_error', status: 500 },
} as const satisfies Record<ErrorCode, OpenAiMapping>;

/** A non-retryable upstream 4xx seen through an OpenAI-style endpoint: the client's request was refused. */
function upstreamCode(status: number): string {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 404) return 'invalid_model';
  if (status === 413) return 'request_too_large';
  return 'provider_error';
}

export function openAiError(err: GatewayError): { status: number; code: string; message: string; param?: string } {
  const mapping: OpenAiMapping = openAiErrorCodes[err.code];
  let status = mapping.status ?? err.status;
  let code = mapping.code;
  if (err.code === 'GW_ERR_UPSTREAM') {
    status = err.status;
    code = upstreamCode(status);
  }
  const out: { status: number; code: string; message: string; param?: string } = { status, code, message: err.message };
  if (err.param !== undefined) out.param = err.param;
  return out;
}

export function openAiErrorBody(err: GatewayError): { status: number; body: string } {
  const { status, ...error } = openAiError(err);
  return { status, body: JSON.stringify({ error }) };
}
