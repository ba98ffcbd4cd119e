// The per-request context every stage receives: ids, logger, cancellation, configuration, the
// caller's key and reservation, and the shared services (store, ledger, providers).
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { DialectName, RoutedRequest, Usage } from './chunks.js';
import type { KeyRecord, Reservation } from './store/types.js';
import type { Services } from './services.js';
import type { MessagesHeaderInfo } from './dialects/index.js';
import type { UpstreamTiming } from './request-log.js';

/** The request id a client sees: the `request-id` header (the upstream's id when it differs), else ours. */
export function publicRequestId(ctx: RequestContext): string {
  const h = ctx.response.headers['request-id'];
  return typeof h === 'string' ? h : ctx.reqId;
}

export type EndpointName =
  | 'messages'
  | 'messages.count_tokens'
  | 'models'
  | 'mcp_servers'
  | 'hello'
  | 'chat.completions'
  | 'responses'
  | 'audio.transcriptions'
  | 'not_found';

/** What the HTTP layer needs to answer: set by stages before the first byte. */
export interface ResponseHead {
  status: number;
  headers: Record<string, string | string[]>;
  /** true once status and headers went out: failures must then be reported in-band */
  sent: boolean;
  /**
   * The answer is one document (a non-streaming JSON body): the writer keeps the pieces and sends
   * them at the end in one write with a `content-length`, and a failure before the end is still
   * answered with the dialect's error envelope.
   */
  whole?: boolean;
}

export interface RequestContext {
  readonly reqId: string;
  readonly log: Logger;
  /** the logger writes info lines: build an info line's fields only when true */
  readonly logsInfo: boolean;
  /** the logger writes debug lines: the pipeline then times each stage */
  readonly logsDebug?: boolean;
  readonly signal: AbortSignal;
  /** abort the request (client went away, shutdown): cancels the upstream call */
  abort(reason?: unknown): void;
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
  /** the authenticated key (the auth hook), fixed before the chain starts */
  readonly key: KeyRecord | null;
  /** the headers every answer carries (the request id, in the client dialect's header) */
  readonly responseHeaders: Readonly<Record<string, string>>;
  reservation: Reservation | null;
  routed: RoutedRequest | null;
  /** provider that served (set by dispatch once a deployment answered) */
  provider: { id: string; protocol: 'anthropic' | 'openai'; api: 'messages' | 'chat' | 'responses' | 'transcriptions'; upstreamModel: string; requestId?: string; /** the upstream answered with SSE (else one JSON body) */ stream: boolean; /** when the call was sent, answered and ended */ timing?: UpstreamTiming } | null;
  /** validated usage so far (set by the integrity stage): what settle charges */
  usage: Usage | null;
  /** true once a provider accepted the request: inference may have begun */
  providerWork: boolean;
  /** final outcome for the summary line */
  outcome: { status: number; errorCode?: string } | null;
  response: ResponseHead;
  /** SSE keep-alive frame of the client dialect (set by the encoder), written during provider silence */
  keepalive: string | null;
  /** Messages endpoints: the validated `anthropic-*` headers (the header hook) */
  readonly anthropic: MessagesHeaderInfo | null;
}
