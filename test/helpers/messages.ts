// Helpers for the end-to-end Messages tests: requests against a running bin/gateway, the error
// envelope check, an SSE parser that keeps each `data` string exactly, the provider-call check and
// the credits CLI (for billing assertions on a file store).
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { ROOT } from './paths.js';
import { messagesHeaders, type RunningGateway } from './gateway.js';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
}

export interface PostOptions {
  headers?: Record<string, string>;
  /** replaces the default Messages headers entirely */
  rawHeaders?: Record<string, string>;
  path?: string;
  query?: string;
  body?: string | Buffer;
  signal?: AbortSignal;
}

/** POST a Messages body (an object is JSON-encoded) and read the whole answer. */
export async function post(gw: RunningGateway, body: unknown, opts: PostOptions = {}): Promise<Reply> {
  const res = await fetch(`${gw.url}${opts.path ?? '/v1/messages'}${opts.query ?? ''}`, {
    method: 'POST',
    headers: opts.rawHeaders ?? messagesHeaders(opts.headers),
    body: opts.body ?? JSON.stringify(body),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export const countTokens = (gw: RunningGateway, body: unknown, opts: PostOptions = {}): Promise<Reply> => post(gw, body, { ...opts, path: '/v1/messages/count_tokens' });

/** A minimal valid request body. */
export function msg(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, max_tokens: 256, messages: [{ role: 'user', content: 'Hello there' }], ...extra };
}

export interface ErrorBody {
  type: string;
  error: { type: string; message: string };
  request_id: string;
}

/** The Messages error envelope: status, `{type:'error', error:{type, message}, request_id}`, request-id header. */
export function expectError(t: Test, r: Reply, status: number, type: string, message?: string | RegExp): ErrorBody {
  t.equal(r.status, status, `status ${status}: ${r.text.slice(0, 300)}`);
  let body: ErrorBody;
  try {
    body = JSON.parse(r.text) as ErrorBody;
  } catch {
    t.ok(false, `error body is JSON: ${r.text.slice(0, 200)}`);
    return { type: '', error: { type: '', message: '' }, request_id: '' };
  }
  t.same(Object.keys(body).sort(), ['error', 'request_id', 'type'], 'envelope keys');
  t.equal(body.type, 'error');
  t.equal(body.error?.type, type, 'error.type');
  t.same(Object.keys(body.error ?? {}).sort(), ['message', 'type'], 'error keys');
  t.equal(typeof body.request_id, 'string');
  t.equal(r.headers.get('request-id'), body.request_id, 'request-id header equals request_id');
  t.match(r.headers.get('content-type') ?? '', /^application\/json/);
  if (message !== undefined) {
    if (typeof message === 'string') t.ok(body.error.message.includes(message), `message contains ${JSON.stringify(message)}: ${body.error.message}`);
    else t.match(body.error.message, message);
  }
  return body;
}

export interface SseFrame {
  event: string | undefined;
  data: string;
}

/** Parse an SSE body; `data` is kept exactly (one leading space after `data:` removed, lines joined by \n). */
export function parseSse(text: string): SseFrame[] {
  const out: SseFrame[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split('\n\n')) {
    if (block.trim() === '') continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) out.push({ event, data: data.join('\n') });
  }
  return out;
}

export const events = (frames: SseFrame[]): (string | undefined)[] => frames.map((f) => f.event);
export const dataOf = (f: SseFrame | undefined): any => (f ? JSON.parse(f.data) : undefined);

/** Requests the simulated provider received on its API paths (not /_sim). */
export async function upstreamCalls(gw: RunningGateway): Promise<Awaited<ReturnType<RunningGateway['simRequests']>>> {
  return (await gw.simRequests()).filter((r) => r.path.startsWith('/v1/'));
}

/** A config file on disk (for the credits CLI) with a file store in a fresh temp dir. */
export function fileStoreConfig(config: Record<string, unknown>): { config: Record<string, unknown>; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-msg-'));
  const withStore = { ...config, store: `sqlite:${join(dir, 'gw.db')}` };
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(withStore));
  return { config: withStore, file };
}

const exec = promisify(execFile);

/** `bin/gateway credits <args> --config <file>`: the JSON lines it prints. */
export async function credits(file: string, ...args: string[]): Promise<Record<string, unknown>[]> {
  const { stdout } = await exec(process.execPath, [join(ROOT, 'dist/bin/gateway.js'), 'credits', ...args, '--config', file], { cwd: ROOT });
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Wait until `check` returns a value (polling), or give up after `ms`. */
export async function eventually<V>(check: () => Promise<V | undefined | null | false>, ms = 3000, every = 25): Promise<V | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() >= end) return undefined;
    await new Promise((r) => setTimeout(r, every));
  }
}
