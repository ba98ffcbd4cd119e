// The admin API from a test: a bin/gateway with an admin key on a file store (SQLite, or a fresh
// PostgreSQL database under `npm run test:postgres`), and a small client for /admin/v1.
import { fileStoreConfig, sleep, type FileStore } from './billing.js';
import { startGateway, type RunningGateway } from './gateway.js';

export const ADMIN_KEY = 'admin-test-key-0123456789';

export interface AdminAnswer {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

/** `fetch` of an admin route; `auth` null sends no Authorization header, a string sends that bearer. */
export async function adminCall(url: string, method: string, path: string, body?: unknown, auth: string | null = ADMIN_KEY): Promise<AdminAnswer> {
  const headers: Record<string, string> = {};
  if (auth !== null) headers.authorization = `Bearer ${auth}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}/admin/v1${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as Record<string, any> };
}

export interface AdminGateway {
  gw: RunningGateway;
  store: FileStore;
  call(method: string, path: string, body?: unknown, auth?: string | null): Promise<AdminAnswer>;
}

/** A gateway with the admin key on a file store; `extra` overrides the base test config. */
export async function startAdminGateway(extra: Record<string, unknown> = {}, store: FileStore = fileStoreConfig([], { admin: { keys: [ADMIN_KEY] }, ...extra })): Promise<AdminGateway> {
  const gw = await startGateway(store.config);
  return { gw, store, call: (method, path, body, auth) => adminCall(gw.url, method, path, body, auth) };
}

/** A one-turn Messages request with `key`; resolves with the status. */
export async function askMessages(url: string, key: string): Promise<number> {
  const res = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': key },
    body: JSON.stringify({ model: 'anthropic/claude-opus-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.text();
  return res.status;
}

/** Serves `n` Messages requests with `key`; the request ids of all `total` rows, oldest first, once the admin API lists them. */
export async function serveAndList(a: AdminGateway, key: string, n: number, total: number): Promise<string[]> {
  for (let i = 0; i < n; i++) if ((await askMessages(a.gw.url, key)) !== 200) throw new Error('request failed');
  for (const deadline = Date.now() + 5000; Date.now() < deadline; await sleep(20)) {
    const page = (await a.call('GET', '/requests?limit=500')).body;
    if (page.data.length === total) return (page.data as { requestId: string }[]).map((r) => r.requestId).reverse();
  }
  throw new Error(`fewer than ${total} rows listed after 5 s`);
}
