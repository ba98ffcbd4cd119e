// Response writing for the simulated provider: JSON and SSE bodies, abort-aware sleeping, and the
// error envelopes of both protocols.
import type { ServerResponse } from 'node:http';
import { toJson } from './json.js';

/** Which wire dialect an endpoint speaks (transcription is OpenAI-shaped). */
export type Proto = 'anthropic' | 'chat' | 'responses' | 'transcription';

/** One SSE event. `text` (pre-rendered data, e.g. `[DONE]` or broken JSON) wins over `data`. */
export interface Frame {
  event?: string;
  data?: unknown;
  text?: string;
}

export function renderFrame(f: Frame, nl = '\n'): string {
  const data = f.text ?? toJson(f.data);
  return (f.event !== undefined ? `event: ${f.event}${nl}` : '') + `data: ${data}${nl}${nl}`;
}

export interface ErrorOpts {
  type?: string;
  code?: string | null;
  param?: string | null;
  headers?: Record<string, string>;
}

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 502: 'api_error', 503: 'api_error',
  529: 'overloaded_error',
};
const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'invalid_request_error', 403: 'invalid_request_error',
  404: 'invalid_request_error', 413: 'invalid_request_error', 429: 'rate_limit_exceeded', 500: 'server_error',
  502: 'server_error', 503: 'server_error', 529: 'server_error',
};

export function errorBody(proto: Proto, status: number, message: string, reqId: string, o: ErrorOpts = {}): unknown {
  if (proto === 'anthropic') {
    return { type: 'error', error: { type: o.type ?? ANTHROPIC_TYPES[status] ?? 'api_error', message }, request_id: reqId };
  }
  return {
    error: { message, type: o.type ?? OPENAI_TYPES[status] ?? 'server_error', param: o.param ?? null, code: o.code ?? null },
  };
}

export class Out {
  private closed = false;
  private waiters = new Set<() => void>();

  constructor(
    readonly res: ServerResponse,
    readonly proto: Proto,
    readonly reqId: string,
  ) {
    res.setHeader(proto === 'anthropic' ? 'request-id' : 'x-request-id', reqId);
    res.on('close', () => {
      this.closed = true;
      for (const w of this.waiters) w();
      this.waiters.clear();
    });
    res.on('error', () => {
      this.closed = true;
    });
  }

  get gone(): boolean {
    return this.closed || this.res.destroyed;
  }

  /** Waits `ms`; resolves false (early) when the client went away. */
  sleep(ms: number): Promise<boolean> {
    if (this.gone) return Promise.resolve(false);
    if (ms <= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve(!this.gone);
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  /** Resolves when the client closes the connection (or the server shuts it). */
  waitClose(): Promise<void> {
    if (this.gone) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  send(status: number, body: string | Buffer, contentType: string, headers: Record<string, string> = {}): void {
    if (this.gone || this.res.headersSent) return;
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    this.res.writeHead(status, { 'content-type': contentType, ...headers, 'content-length': String(buf.length) });
    this.res.end(buf);
  }

  json(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.send(status, typeof body === 'string' ? body : toJson(body), 'application/json', headers);
  }

  error(status: number, message: string, o: ErrorOpts = {}): void {
    const headers: Record<string, string> = { ...o.headers };
    if (status >= 400 && status < 500 && status !== 429 && headers['x-should-retry'] === undefined) {
      headers['x-should-retry'] = 'false';
    }
    this.json(status, errorBody(this.proto, status, message, this.reqId, o), headers);
  }

  /** Sends the status line and headers now; false when that is no longer possible. */
  begin(status: number, headers: Record<string, string>): boolean {
    if (this.gone || this.res.headersSent) return false;
    this.res.writeHead(status, headers);
    this.res.flushHeaders();
    return true;
  }

  startSse(headers: Record<string, string> = {}): boolean {
    return this.begin(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  }

  private flushed: Promise<void> = Promise.resolve();

  write(chunk: string | Buffer): boolean {
    if (this.gone) return false;
    this.flushed = new Promise((resolve) => {
      this.res.write(chunk, () => resolve());
    });
    return true;
  }

  end(): void {
    if (!this.gone && !this.res.writableEnded) this.res.end();
  }

  /** Drops the TCP connection without finishing the response (after what was written is flushed). */
  async destroy(): Promise<void> {
    await Promise.race([this.flushed, this.waitClose()]);
    const sock = this.res.socket;
    if (sock) sock.destroy();
    else this.res.destroy();
  }
}

/** Writes frames with `delayMs` between them; false when the client left midway. */
export async function writeFrames(out: Out, frames: Frame[], delayMs: number, nl = '\n'): Promise<boolean> {
  for (let i = 0; i < frames.length; i++) {
    if (i > 0 && delayMs > 0 && !(await out.sleep(delayMs))) return false;
    const f = frames[i];
    if (f === undefined || !out.write(renderFrame(f, nl))) return false;
  }
  return true;
}

/** What a protocol module decided to answer, before faults are applied. */
export type Outcome =
  | { kind: 'error'; status: number; message: string; opts?: ErrorOpts }
  | { kind: 'json'; body: Record<string, unknown> }
  | { kind: 'text'; body: string; contentType: string }
  | { kind: 'stream'; frames: Frame[] };
