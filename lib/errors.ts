// One error type for the whole gateway. Every failure a client can see is a GatewayError with a
// stable code; each dialect maps codes to its own envelope (lib/dialects/<d>/errors.ts), and a test
// checks that every code maps in every dialect.
import { format } from 'node:util';

const BRAND = Symbol.for('model-gateway.error');

/** Fields an upstream error carried that must reach the client unchanged (status, wording, ids). */
export interface UpstreamErrorInfo {
  /** protocol of the provider that answered: decides whether `type` is meaningful to a same-dialect client */
  protocol: 'anthropic' | 'openai';
  status: number;
  /** provider's own error type or code (`overloaded_error`, `rate_limit_exceeded`, ...) */
  type?: string;
  message: string;
  requestId?: string;
  retryAfter?: string;
}

export interface ErrorOptions {
  /** JSON path of the offending field (`messages[3].content[0]`) or parameter name */
  param?: string;
  cause?: unknown;
  /** extra response headers (retry-after, rate-limit headers) */
  headers?: Record<string, string>;
  upstream?: UpstreamErrorInfo;
  /** override status (upstream pass-through) */
  status?: number;
  /** provider inference may have begun (see GatewayError.providerWork) */
  providerWork?: boolean;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;
  readonly upstream: UpstreamErrorInfo | undefined;
  /** true once provider inference may have begun (decides "nothing was processed" wording) */
  providerWork = false;

  constructor(code: ErrorCode, message: string, opts: ErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    const def = DEFINITIONS[code];
    this.name = 'GatewayError';
    this.code = code;
    this.status = opts.status ?? def.status;
    this.retryable = def.retryable;
    this.param = opts.param;
    this.headers = opts.headers ?? {};
    this.upstream = opts.upstream;
    if (opts.providerWork) this.providerWork = true;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static is(value: unknown): value is GatewayError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** Any thrown value as a GatewayError (unknown exceptions become GW_ERR_INTERNAL, message hidden). */
  static from(value: unknown): GatewayError {
    if (GatewayError.is(value)) return value;
    if (value instanceof Error && value.name === 'AbortError') {
      return new GatewayError('GW_ERR_CLIENT_CLOSED', 'The client closed the connection.', { cause: value });
    }
    return new GatewayError('GW_ERR_INTERNAL', 'An unexpected error occurred in the gateway.', { cause: value });
  }
}

interface Definition {
  status: number;
  retryable: boolean;
  template: string;
}

function def(status: number, template: string, retryable = false): Definition {
  return { status, retryable, template };
}

// fastify-style one-liners: code → status (and retryable), documented in docs/errors.md. The wording
// lives in the named definitions of lib/errors/ (`errors.authInvalid()`); the templates here serve
// only `createError`, a shorthand for tests that need an error of a given code.
const DEFINITIONS = {
  GW_ERR_BODY_INVALID_JSON: def(400, 'The request body is not valid JSON: %s'),
  GW_ERR_BODY_TOO_LARGE: def(413, 'The request body exceeds the maximum of %s bytes.'),
  GW_ERR_CONTENT_TYPE_INVALID: def(400, '%s'),
  GW_ERR_REQUEST_INVALID: def(400, '%s'),
  GW_ERR_HEADER_INVALID: def(400, '%s'),
  GW_ERR_QUERY_INVALID: def(400, '%s'),
  GW_ERR_CAPABILITY_REJECTED: def(400, 'capability_rejected: %s'),
  GW_ERR_PARAM_UNSUPPORTED: def(400, '%s'),
  GW_ERR_MODEL_UNKNOWN: def(400, '%s'),
  GW_ERR_MODALITY_UNSUPPORTED: def(400, '%s'),
  GW_ERR_CALL_NAME_INVALID: def(400, '%s'),
  GW_ERR_END_USER_ID_INVALID: def(400, '%s'),
  GW_ERR_FILE_FORMAT_INVALID: def(400, '%s'),
  GW_ERR_FILE_TOO_LARGE: def(400, '%s'),
  GW_ERR_RESPONSE_FORMAT_UNSUPPORTED: def(400, '%s'),
  GW_ERR_STORED_RESPONSES_UNSUPPORTED: def(400, '%s'),
  GW_ERR_AUTH_MISSING: def(401, '%s'),
  GW_ERR_AUTH_INVALID: def(401, '%s'),
  GW_ERR_AUTH_CONFLICT: def(401, '%s'),
  GW_ERR_CREDITS_INSUFFICIENT: def(402, '%s'),
  GW_ERR_SPEND_CAP_EXCEEDED: def(402, '%s'),
  GW_ERR_SCOPE_DENIED: def(403, '%s'),
  GW_ERR_MODEL_NOT_ALLOWED: def(403, '%s'),
  GW_ERR_PERMISSION_DENIED: def(403, '%s'),
  GW_ERR_NOT_FOUND: def(404, '%s'),
  GW_ERR_COUNT_TOKENS_UNAVAILABLE: def(404, '%s'),
  GW_ERR_METHOD_NOT_ALLOWED: def(405, '%s'),
  GW_ERR_CONFLICT: def(409, '%s'),
  GW_ERR_REQUEST_TIMEOUT: def(408, '%s', true),
  GW_ERR_HEADERS_TOO_LARGE: def(431, '%s'),
  GW_ERR_RATE_LIMITED: def(429, '%s', true),
  GW_ERR_UPSTREAM: def(502, '%s', true),
  GW_ERR_UPSTREAM_RATE_LIMITED: def(429, '%s', true),
  GW_ERR_UPSTREAM_OVERLOADED: def(529, '%s', true),
  GW_ERR_UPSTREAM_TIMEOUT: def(504, '%s', true),
  GW_ERR_PROVIDER_UNAVAILABLE: def(503, '%s', true),
  GW_ERR_INTEGRITY: def(502, 'The provider response failed an integrity check: %s', true),
  GW_ERR_STREAM_IDLE: def(504, '%s', true),
  GW_ERR_CLIENT_CLOSED: def(499, '%s'),
  GW_ERR_CONFIG_INVALID: def(500, 'Invalid configuration: %s'),
  GW_ERR_UNAVAILABLE: def(503, '%s', true),
  GW_ERR_INTERNAL: def(500, '%s', true),
} as const satisfies Record<string, Definition>;

export type ErrorCode = keyof typeof DEFINITIONS;
export const ERROR_CODES = Object.keys(DEFINITIONS) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return DEFINITIONS[code].status;
}

/**
 * `createError('GW_ERR_BODY_TOO_LARGE', limit)`: the template filled with the arguments.
 * Gateway code never calls it (test/errors-catalog.test.ts checks): it names the error in lib/errors/
 * (`defineError`) and throws `errors.<name>(...)`.
 */
export function createError(code: ErrorCode, args: unknown[] | string, opts?: ErrorOptions): GatewayError {
  const list = Array.isArray(args) ? args : [args];
  return new GatewayError(code, format(DEFINITIONS[code].template, ...list), opts);
}

/** Shorthand for the most common case: a 400 naming a field path. */
export function invalid(path: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID', path ? `${path}: ${message}` : message, { param: path || undefined });
}

/** `capability_rejected: <path> ...` errors with guidance. */
export function capabilityRejected(path: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_CAPABILITY_REJECTED', `capability_rejected: ${path}: ${message}`, { param: path });
}

/** A named error (lib/errors/): its typed parameters in, a GatewayError with code, status and wording out. */
export interface ErrorFactory<A extends unknown[]> {
  (...args: A): GatewayError;
  readonly code: ErrorCode;
}

/**
 * fastify-style one-liner with typed parameters instead of a printf template, so the wording lives
 * here and a call site reads `throw errors.authInvalid()`. `options` (param, headers, cause, ...) is
 * fixed, or computed from the same arguments as the message.
 */
export function defineError<A extends unknown[]>(
  code: ErrorCode,
  message: (...args: A) => string,
  options?: ErrorOptions | ((...args: A) => ErrorOptions),
): ErrorFactory<A> {
  const make = (...args: A): GatewayError => new GatewayError(code, message(...args), typeof options === 'function' ? options(...args) : options);
  return Object.assign(make, { code });
}
