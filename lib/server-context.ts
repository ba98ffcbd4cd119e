// The RequestContext of a request the server runs. A class, not an object literal: a literal with
// getters (the lazy logger, the lazy AbortSignal) is made in V8's dictionary mode, so every
// `ctx.<field>` read of every stage was a hash lookup; instances of one class share one fast shape.
// The logger (its bindings serialised and redacted) and the AbortSignal are built only when asked for.
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { DialectName } from './chunks.js';
import type { Config } from './config.js';
import type { EndpointName, RequestContext } from './context.js';
import type { MessagesHeaderInfo } from './dialects/index.js';
import { RequestAbort } from './request-abort.js';
import type { Services } from './services.js';
import type { KeyRecord } from './store/types.js';

/** What the server knows of a request before its context exists. */
export interface ContextFacts {
  reqId: string;
  root: Logger;
  config: Config;
  services: Services;
  endpoint: EndpointName;
  dialect: DialectName;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawHeaders: readonly string[];
  query: URLSearchParams;
  startedAt: number;
  key: KeyRecord | null;
  anthropic: MessagesHeaderInfo | null;
  responseHeaders: Readonly<Record<string, string>>;
}

export class ServerContext implements RequestContext {
  readonly reqId: string;
  readonly logsInfo: boolean;
  readonly logsDebug: boolean;
  readonly abortWatch = new RequestAbort();
  readonly config: Config;
  readonly services: Services;
  readonly endpoint: EndpointName;
  readonly dialect: DialectName;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly query: URLSearchParams;
  readonly startedAt: number;
  readonly key: KeyRecord | null;
  readonly anthropic: MessagesHeaderInfo | null;
  readonly responseHeaders: Readonly<Record<string, string>>;
  private readonly root: Logger;
  private child: Logger | null = null;

  constructor(f: ContextFacts) {
    this.reqId = f.reqId;
    this.root = f.root;
    this.logsInfo = f.root.isLevelEnabled('info');
    this.logsDebug = f.root.isLevelEnabled('debug');
    this.config = f.config;
    this.services = f.services;
    this.endpoint = f.endpoint;
    this.dialect = f.dialect;
    this.method = f.method;
    this.path = f.path;
    this.headers = f.headers;
    this.rawHeaders = f.rawHeaders;
    this.query = f.query;
    this.startedAt = f.startedAt;
    this.key = f.key;
    this.anthropic = f.anthropic;
    this.responseHeaders = f.responseHeaders;
  }

  /** the child logger, built when something first logs */
  get log(): Logger {
    return (this.child ??= this.root.child({ reqId: this.reqId, endpoint: this.endpoint }));
  }

  /** a real AbortSignal, made only for what needs one (lib/request-abort.ts) */
  get signal(): AbortSignal {
    return this.abortWatch.signal;
  }

  /** abort the request (client went away, shutdown): cancels the upstream call */
  abort(reason?: unknown): void {
    this.abortWatch.abort(reason);
  }
}
