// Renders a GatewayError in the client's dialect: status and envelope body from the dialect
// (`errorEnvelope`), plus the retry headers every dialect shares.
import type { GatewayError } from '../errors.js';
import type { Dialect } from './dialect.js';

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A 400 that names a beta in Anthropic's words is recoverable: the client retries without that beta. */
function namesBeta(err: GatewayError): boolean {
  return err.message.includes('for the `anthropic-beta` header');
}

/** A client error the provider gave (4xx other than 408, 409, 429) is final, whatever the code's default. */
function retryable(err: GatewayError, status: number): boolean {
  const finalUpstream = err.upstream !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409 && status !== 429;
  return err.retryable && !finalUpstream;
}

export function renderDialectError(dialect: Dialect, err: GatewayError, requestId: string): RenderedError {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...err.headers };
  const { status, body } = dialect.errorEnvelope(err, requestId);
  const retryAfter = err.headers['retry-after'] ?? err.upstream?.retryAfter;
  if (retryAfter !== undefined) headers['retry-after'] = retryAfter;
  else if (status === 429 || status === 529 || status === 503) headers['retry-after'] = '1';
  if (!retryable(err, status) && !namesBeta(err)) headers['x-should-retry'] = 'false';
  else if (namesBeta(err)) headers['x-should-retry'] = 'true';
  return { status, headers, body };
}
