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

const anthropic: Transport = {
  path: () => '/v1/messages',
  authHeaders: (apiKey) => ({ 'x-api-key': apiKey ?? '', 'anthropic-version': '2023-06-01' }),
  requestIdHeader: 'request-id',
  parseError(body, status) {
    const err = parseJsonObject(body)?.error as Record<string, unknown> | undefined;
    if (err && typeof err.message === 'string') return { type: typeof err.type === 'string' ? err.type : undefined, message: err.message };
    return { message: body.slice(0, 500) || `upstream status ${status}` };
  },
};

const openai: Transport = {
  path: (api) => (api === 'responses' ? '/responses' : api === 'transcriptions' ? '/audio/transcriptions' : '/chat/completions'),
  authHeaders: (apiKey) => ({ authorization: `Bearer ${apiKey ?? ''}` }),
  requestIdHeader: 'x-request-id',
  parseError(body, status) {
    const err = parseJsonObject(body)?.error as Record<string, unknown> | undefined;
    if (err && typeof err.message === 'string') {
      const code = typeof err.code === 'string' ? err.code : typeof err.type === 'string' ? err.type : undefined;
      return { type: code, message: err.message };
    }
    return { message: body.slice(0, 500) || `upstream status ${status}` };
  },
};

export const TRANSPORTS: Record<Deployment['protocol'], Transport> = { anthropic, openai };
