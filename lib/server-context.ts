// The RequestContext of a request the server runs. A class, not an object literal: a literal with
// getters (the lazy logger, the lazy AbortSignal) is made in V8's dictionary mode, so every
// `ctx.<field>` read of every stage was a hash lookup; instances of one class share one fast shape.
// The logger (its bindings serialised and redacted) and the AbortSignal are built only when asked for.
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { DialectName } from './chunks.js';
import type { Learned, RequestHead } from './endpoints/index.js';
import type { Config } from './config.js';
import type { EndpointName, RequestContext } from './context.js';
import type { MessagesHeaderInfo } from './dialects/index.js';
import { RequestAbort } from './request-abort.js';
import type { Services } from './services.js';
import type { KeyRecord } from './store/types.js';

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

  /**
   * From the request head and what the hooks learned, read field by field (no facts object built
   * per request only to be copied here).
   */
  constructor(reqId: string, root: Logger, head: RequestHead, endpoint: EndpointName, dialect: DialectName, learned: Learned, startedAt: number, responseHeaders: Readonly<Record<string, string>>) {
    this.reqId = reqId;
    this.root = root;
    this.logsInfo = root.isLevelEnabled('info');
    this.logsDebug = root.isLevelEnabled('debug');
    this.config = head.config;
    this.services = head.services;
    this.endpoint = endpoint;
    this.dialect = dialect;
    this.method = head.method;
    this.path = head.path;
    this.headers = head.headers;
    this.rawHeaders = head.rawHeaders;
    this.query = head.query;
    this.startedAt = startedAt;
    this.key = learned.key;
    this.anthropic = learned.anthropic;
    this.responseHeaders = responseHeaders;
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
