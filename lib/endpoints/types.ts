// What an endpoint is: its dialect, its hooks (checks that need no body, in order, each returning
// what it learned) and its chain of stages, or a small handler for the helper routes. The table of
// endpoints (./index.ts) is the request lifecycle, one entry a file (the fastify hooks-array idea).
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { DialectName } from '../chunks.js';
import type { GatewayError } from '../errors.js';
import type { Config } from '../config.js';
import type { EndpointName, RequestContext } from '../context.js';
import type { MessagesHeaderInfo } from '../dialects/index.js';
import type { ChainNote } from '../notes.js';
import type { Chain } from '../pipeline.js';
import type { Services } from '../services.js';
import type { KeyRecord } from '../store/types.js';

/** What a hook may read: the request line and headers, and the configuration it runs against. */
export interface RequestHead {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly query: URLSearchParams;
  readonly config: Config;
  readonly services: Services;
}

/** What the hooks learn before the chain starts; it becomes part of the (read-only) request context. */
export interface Learned {
  /** the authenticated key (the auth hook) */
  readonly key: KeyRecord | null;
  /** Messages endpoints: the validated `anthropic-*` headers (the header hook) */
  readonly anthropic: MessagesHeaderInfo | null;
}

/** A check before the body is read: throws a GatewayError, or returns what it learned (or nothing). */
export type Hook = (head: RequestHead, learned: Learned) => Partial<Learned> | void;

/** The chain's final output: the client's bytes, and the notes the response writer reads. */
export type EndpointChain = Chain<Buffer, string | Buffer | ChainNote>;

export interface Endpoint {
  readonly name: EndpointName;
  /** the client's dialect: decides error envelopes (a function: /v1/models depends on headers) */
  readonly dialect: (req: IncomingMessage) => DialectName;
  readonly hooks: readonly Hook[];
  readonly chain?: EndpointChain;
  /**
   * a helper route answers itself (it writes its own head, with `ctx.responseHeaders`); one that
   * answers an error in its own envelope returns that error, so the request log line names its code
   */
  readonly handle?: (ctx: RequestContext, req: IncomingMessage, res: ServerResponse) => void | GatewayError | Promise<void | GatewayError>;
}

/** One entry of the table: where an endpoint is served, and how to build it for a configuration. */
export interface EndpointDefinition {
  /** '*': every method, and every path under `path` (the endpoint routes within it) */
  readonly method: string;
  readonly path: string;
  build(config: Config): Endpoint;
}

/** The endpoint table: the default is lib/endpoints/index.ts; createGateway takes a custom one. */
export type EndpointTable = readonly EndpointDefinition[];
