// The per-request context every stage receives: facts fixed before the chain starts (ids, the
// request line and headers, the authenticated key and validated headers, the configuration and
// services, the logger, cancellation). Every field is readonly and no stage writes one: what a stage
// learns travels down the chain as a value or a typed note (lib/notes.ts).
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { DialectName } from './chunks.js';
import type { KeyRecord } from './store/types.js';
import type { Services } from './services.js';
import type { MessagesHeaderInfo } from './dialects/index.js';
import type { AbortWatch } from './request-abort.js';

export type EndpointName =
  | 'messages'
  | 'messages.count_tokens'
  | 'models'
  | 'mcp_servers'
  | 'hello'
  | 'health'
  | 'metrics'
  | 'admin'
  | 'dashboard'
  | 'chat.completions'
  | 'responses'
  | 'audio.transcriptions'
  | 'not_found';

export interface RequestContext {
  readonly reqId: string;
  readonly log: Logger;
  /** the logger writes info lines: build an info line's fields only when true */
  readonly logsInfo: boolean;
  /** the logger writes debug lines: the pipeline then times each stage */
  readonly logsDebug?: boolean;
  readonly signal: AbortSignal;
  /**
   * the same cancellation, cheaper to watch (lib/request-abort.ts): the server's contexts have it, and
   * make `signal` only when something asks for it; read it through `abortWatch(ctx)`
   */
  readonly abortWatch?: AbortWatch;
  /** abort the request (client went away, shutdown): cancels the upstream call */
  readonly abort: (reason?: unknown) => void;
  readonly config: Config;
  readonly services: Services;
  readonly endpoint: EndpointName;
  /** the dialect the client speaks: decides error envelopes and the response encoder */
  readonly dialect: DialectName;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** raw header list as received ([name, value, name, value, ...]): singleton checks need it */
  readonly rawHeaders: readonly string[];
  readonly query: URLSearchParams;
  readonly startedAt: number;
  /** the authenticated key (the auth hook) */
  readonly key: KeyRecord | null;
  /** Messages endpoints: the validated `anthropic-*` headers (the header hook) */
  readonly anthropic: MessagesHeaderInfo | null;
  /** the headers every answer carries (the request id, in the client dialect's header) */
  readonly responseHeaders: Readonly<Record<string, string>>;
}
