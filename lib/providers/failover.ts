// What every dispatcher (text generation, transcriptions) decides the same way about a failed
// upstream attempt: which failures move on to the next deployment, and which error a final one is.
import type { Deployment } from '../chunks.js';
import type { GatewayError, UpstreamErrorInfo } from '../errors.js';
import { errors } from '../errors/index.js';
import type { Transport } from './transport.js';

export interface Failure {
  deployment: Deployment;
  /** `answer`: a 2xx answer that could not be read (malformed, cut short) before any of it went on */
  kind: 'http' | 'timeout' | 'connection' | 'answer';
  upstream?: UpstreamErrorInfo;
  detail: string;
}

/** 408, 409, 429 and 5xx (529 included) move on to the next deployment. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function errorCode(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string }; name?: string };
  return e.code ?? e.cause?.code ?? e.name ?? 'unknown';
}

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** A connection or timeout failure; `bodyTimeout` counts a silent body as a timeout too. */
export function transportFailure(err: unknown, deployment: Deployment, bodyTimeout = false): Failure {
  const code = errorCode(err);
  const timeout = TIMEOUTS.has(code) || (bodyTimeout && code === 'UND_ERR_BODY_TIMEOUT');
  return { deployment, kind: timeout ? 'timeout' : 'connection', detail: `${deployment.providerId}: ${timeout ? 'timed out' : `connection failed (${code})`}` };
}

export function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The provider's error answer, as the client may see it (status, wording, request id, retry-after). */
export function upstreamError(deployment: Deployment, transport: Transport, status: number, headers: Record<string, string | string[] | undefined>, body: string): UpstreamErrorInfo {
  const parsed = transport.parseError(body, status);
  const upstream: UpstreamErrorInfo = { protocol: deployment.protocol, status, message: parsed.message };
  if (parsed.type !== undefined) upstream.type = parsed.type;
  const requestId = header(headers, transport.requestIdHeader);
  if (requestId !== undefined) upstream.requestId = requestId;
  const retryAfter = header(headers, 'retry-after');
  if (retryAfter !== undefined) upstream.retryAfter = retryAfter;
  return upstream;
}

/**
 * A provider error that is not failed over: 401/403 is the gateway's own configuration problem
 * (502); any other client error keeps the provider's status and wording.
 */
export function finalUpstreamError(deployment: Deployment, upstream: UpstreamErrorInfo): GatewayError {
  if (upstream.status === 401 || upstream.status === 403) {
    return errors.upstreamCredentialsRejected(deployment.providerId, upstream.status);
  }
  return errors.upstreamRefused(upstream);
}
