// The admin API client: every call sends the signed-in admin key as `Authorization: Bearer`, to
// /admin/v1 beside the dashboard (a relative URL, so a gateway mounted under a prefix works too).
// A non-2xx answer becomes an ApiError carrying the envelope's message and the field it names.
import { adminKey } from './session.js';

const BASE = new URL('../admin/v1/', document.baseURI);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** the request field the error is about (`spendCap`, `scopes[1]`), when the API names one */
    readonly param: string | null,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Query = Record<string, string | number | undefined>;

function urlOf(path: string, query: Query = {}): URL {
  const url = new URL(path, BASE);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  return url;
}

/** The OpenAI-style envelope `{error: {message, type, param, code}}`, or what can be said without one. */
async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const e = (JSON.parse(text) as { error?: { message?: unknown; param?: unknown; code?: unknown } }).error;
    if (e && typeof e.message === 'string') {
      return new ApiError(res.status, e.message, typeof e.param === 'string' ? e.param : null, typeof e.code === 'string' ? e.code : null);
    }
  } catch {
    // not JSON: said below
  }
  return new ApiError(res.status, `The admin API answered ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`, null, null);
}

async function call<T>(method: string, url: URL, body?: unknown, key = adminKey()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? null : JSON.stringify(body), cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, `The gateway could not be reached (${(err as Error).message}).`, null, null);
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

export const api = {
  get: <T>(path: string, query?: Query, key?: string): Promise<T> => call<T>('GET', urlOf(path, query), undefined, key),
  post: <T>(path: string, body: unknown): Promise<T> => call<T>('POST', urlOf(path), body),
  del: <T>(path: string): Promise<T> => call<T>('DELETE', urlOf(path)),
};

/** A path segment from an id (ids may hold characters a URL path gives meaning to). */
export const seg = encodeURIComponent;
