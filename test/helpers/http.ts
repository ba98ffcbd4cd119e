// Small HTTP helpers for tests: raw requests (duplicate headers, invalid bytes) over node:http.
import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request with exact headers (arrays send a header more than once) and a raw body. */
export function rawRequest(url: string, opts: { method?: string; headers?: Record<string, string | string[]>; body?: Buffer | string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'POST', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

export function json(body: string): Record<string, unknown> {
  return JSON.parse(body) as Record<string, unknown>;
}

/** error.type (Messages envelope) or error.code (OpenAI envelope) of a JSON error body */
export function errorOf(body: string): { type?: string; code?: string; message: string; param?: string; request_id?: string } {
  const parsed = JSON.parse(body) as { error: { type?: string; code?: string; message: string; param?: string }; request_id?: string };
  return { ...parsed.error, ...(parsed.request_id !== undefined ? { request_id: parsed.request_id } : {}) };
}
