// What differs between upstream hosts: paths, authentication headers, how an error body reads.
// Stages never name a provider; they ask the transport of the deployment's protocol.
import type { Deployment } from '../chunks.js';

export interface UpstreamErrorBody {
  type?: string;
  message: string;
}

export interface Transport {
  path(api: Deployment['api']): string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
  /** the upstream request id response header */
  requestIdHeader: string;
  parseError(body: string, status: number): UpstreamErrorBody;
}

function parseJsonObject(body: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * An error body in none of the two official envelopes, read for its words: vLLM / Databricks put
 * `message` (and a `code` or `error_code`) at the top level, FastAPI servers `{"detail": ...}`.
 * Passed on raw, the client's banner showed a JSON dump or "(no body)" (FAILURE-MODES F60).
 */
function looseError(obj: Record<string, unknown> | null): { type?: string; message: string } | undefined {
  if (obj === null) return undefined;
  const code = [obj.error_code, obj.code, obj.type].find((v): v is string => typeof v === 'string');
  if (typeof obj.message === 'string') return code === undefined ? { message: obj.message } : { type: code, message: obj.message };
  const detail = obj.detail;
  if (typeof detail === 'string') return { message: detail };
  if (detail !== null && typeof detail === 'object' && typeof (detail as { message?: unknown }).message === 'string') return { message: (detail as { message: string }).message };
  if (typeof obj.error === 'string') return { message: obj.error };
  return undefined;
}

const anthropic: Transport = {
  path: () => '/v1/messages',
  authHeaders: (apiKey) => ({ 'x-api-key': apiKey ?? '', 'anthropic-version': '2023-06-01' }),
  requestIdHeader: 'request-id',
  parseError(body, status) {
    const obj = parseJsonObject(body);
    const err = obj?.error as Record<string, unknown> | undefined;
    if (err && typeof err.message === 'string') return { type: typeof err.type === 'string' ? err.type : undefined, message: err.message };
    return looseError(obj) ?? { message: body.slice(0, 500) || `upstream status ${status}` };
  },
};

const openai: Transport = {
  path: (api) => (api === 'responses' ? '/responses' : api === 'transcriptions' ? '/audio/transcriptions' : '/chat/completions'),
  authHeaders: (apiKey) => ({ authorization: `Bearer ${apiKey ?? ''}` }),
  requestIdHeader: 'x-request-id',
  parseError(body, status) {
    const obj = parseJsonObject(body);
    const err = obj?.error as Record<string, unknown> | undefined;
    if (err && typeof err.message === 'string') {
      const code = typeof err.code === 'string' ? err.code : typeof err.type === 'string' ? err.type : undefined;
      return { type: code, message: err.message };
    }
    return looseError(obj) ?? { message: body.slice(0, 500) || `upstream status ${status}` };
  },
};

export const TRANSPORTS: Record<Deployment['protocol'], Transport> = { anthropic, openai };
