// Renders a GatewayError in the client's dialect: status, headers and the envelope body.
import type { DialectName } from '../chunks.js';
import type { GatewayError } from '../errors.js';
import { anthropicErrorBody } from './anthropic/errors.js';
import { openAiErrorBody } from './openai/errors.js';

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const UPSTREAM_CODES = new Set(['GW_ERR_UPSTREAM', 'GW_ERR_UPSTREAM_RATE_LIMITED', 'GW_ERR_UPSTREAM_OVERLOADED', 'GW_ERR_PROVIDER_UNAVAILABLE']);

/** The HTTP status a Messages client sees: canonical upstream errors keep the provider's status. */
function anthropicStatus(err: GatewayError): number {
  if (err.upstream && UPSTREAM_CODES.has(err.code)) return err.upstream.status;
  return err.status;
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

export function renderError(dialect: DialectName, err: GatewayError, requestId: string): RenderedError {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...err.headers };
  let status: number;
  let body: string;
  if (dialect === 'anthropic') {
    status = anthropicStatus(err);
    body = anthropicErrorBody(err, requestId);
  } else {
    ({ status, body } = openAiErrorBody(err));
  }
  const retryAfter = err.headers['retry-after'] ?? err.upstream?.retryAfter;
  if (retryAfter !== undefined) headers['retry-after'] = retryAfter;
  else if (status === 429 || status === 529 || status === 503) headers['retry-after'] = '1';
  if (!retryable(err, status) && !namesBeta(err)) headers['x-should-retry'] = 'false';
  else if (namesBeta(err)) headers['x-should-retry'] = 'true';
  return { status, headers, body };
}
