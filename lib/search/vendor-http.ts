// What the four vendor modules share: joining a base URL with the vendor's path, reading a JSON body,
// and turning an HTTP error status (with the vendor's own message) into a typed failure.
import type { HttpReply, ParseOutcome, SearchFailure, SearchFailureKind } from './types.js';

/** `base` may carry a path prefix (a proxy, a SearXNG under /searx): the vendor path is appended to it. */
export function joinUrl(base: string, path: string, query?: Record<string, string>): string {
  const url = new URL(base.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  return url.href;
}

export function header(reply: HttpReply, name: string): string | undefined {
  const v = reply.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** `retry-after` as seconds: a number of seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export type Json = Record<string, unknown>;

export function parseObject(body: string): Json | undefined {
  try {
    const v: unknown = JSON.parse(body);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

export function kindOfStatus(status: number): SearchFailureKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'upstream';
  return 'rejected';
}

/** A vendor message is untrusted text too: one line, bounded. */
export function shortMessage(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

export function failure(reply: HttpReply, kind: SearchFailureKind, vendorMessage: string | undefined): { ok: false; failure: SearchFailure } {
  const f: SearchFailure = { kind, status: reply.status, message: `${reply.status}${vendorMessage ? `: ${shortMessage(vendorMessage)}` : ''}` };
  const wait = retryAfterSeconds(header(reply, 'retry-after'));
  if (kind === 'rate-limited' && wait !== undefined) f.retryAfterSeconds = wait;
  return { ok: false, failure: f };
}

export function malformed(why: string): ParseOutcome {
  return { ok: false, failure: { kind: 'malformed', message: why } };
}
