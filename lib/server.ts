// The node:http server: match the endpoint (the table, lib/endpoints/), run its hooks, build the
// read-only request context from what they learned, run its chain or handler, write errors in the
// client's dialect, and shut down gracefully.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { RequestContext } from './context.js';
import { dialects } from './dialects/index.js';
import { GatewayError } from './errors.js';
import { errors } from './errors/index.js';
import { matchEndpoint, type Endpoint, type Learned, type RequestHead, type Routes } from './endpoints/index.js';
import { runPipeline, writeError } from './pipeline.js';
import type { Outcome } from './notes.js';
import { newRequestId } from './ids.js';
import type { Services } from './services.js';
import { NO_FACTS, requestSummary } from './request-log.js';
import { bodyBudget } from './body-budget.js';
import { clientErrorListener } from './client-error.js';
import { lingerOnClose } from './linger.js';
import { hostError, requestTarget } from './request-target.js';
import { ServerContext } from './server-context.js';

/**
 * What a request runs against: one configuration and what was built from it. A reload swaps in a
 * new one for new requests; a request keeps the one it started with until it has settled.
 */
export interface ServingState {
  config: Config;
  services: Services;
  routes: Routes;
}

export interface Gateway {
  server: Server;
  /** the request listener `server` runs: mount it in another node:http server (lib/gateway.ts) */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** the state new requests get */
  state(): ServingState;
  /** serve new requests from `next`; resolves once no request uses the state it replaced */
  replace(next: ServingState): Promise<void>;
  /** stop accepting, let in-flight requests finish for the grace period, then abort the rest */
  close(): Promise<void>;
  inflight(): number;
}

/** after the grace period: how long aborted requests get to end themselves before their sockets are cut */
const ABORT_GRACE_MS = 1000;

/** A refused request's body still coming after its answer: read and dropped for `ms`, then the connection is cut. */
function drainBriefly(req: IncomingMessage, ms: number): void {
  // no listener on the socket (a keep-alive socket may see many): the timer checks when it fires
  setTimeout(() => {
    if (!req.complete && !req.socket.destroyed) req.socket.destroy();
  }, ms).unref();
}

const NOTHING_LEARNED: Learned = { key: null, anthropic: null };

/** What the hooks learned so far: written here only, before the context exists. */
type Learning = { -readonly [K in keyof Learned]: Learned[K] };

/** Run the endpoint's hooks in order; what they learned so far, and the error that stopped them. */
function runHooks(endpoint: Endpoint, head: RequestHead): { learned: Learned; error: unknown } {
  if (endpoint.hooks.length === 0) return { learned: NOTHING_LEARNED, error: undefined };
  const learned: Learning = { key: null, anthropic: null };
  try {
    for (const hook of endpoint.hooks) {
      const got = hook(head, learned);
      if (got === undefined) continue;
      if (got.key !== undefined) learned.key = got.key;
      if (got.anthropic !== undefined) learned.anthropic = got.anthropic;
    }
  } catch (error) {
    return { learned, error: error ?? new Error('a hook threw nothing') };
  }
  return { learned, error: undefined };
}

function buildContext(req: IncomingMessage, endpoint: Endpoint, head: RequestHead, learned: Learned, startedAt: number, root: Logger): RequestContext {
  const reqId = newRequestId();
  const dialect = endpoint.dialect(req);
  return new ServerContext(reqId, root, head, endpoint.name, dialect, learned, startedAt, { [dialects[dialect].requestId.header]: reqId });
}

export function createGateway(initial: ServingState, log: Logger): Gateway {
  const inflight = new Set<RequestContext>();
  let closing = false;
  let current = initial;
  /** requests in flight per state, and who waits for a replaced state to be unused */
  const users = new Map<ServingState, number>();
  const drained = new Map<ServingState, () => void>();
  const release = (state: ServingState): void => {
    const n = users.get(state)! - 1;
    if (n > 0) return void users.set(state, n);
    users.delete(state);
    drained.get(state)?.();
  };

  /**
   * One request. Everything it throws is caught here (no `.catch` promise per request on its own
   * promise): a crash is logged and, when nothing went out yet, answered with a bare 500.
   */
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const state = current;
      const target = requestTarget(req.url);
      const endpoint = matchEndpoint(state.routes, req.method ?? 'GET', target.pathname);
      const startedAt = Date.now();
      const head: RequestHead = { method: req.method ?? 'GET', path: target.pathname, headers: req.headers, rawHeaders: req.rawHeaders, query: target.searchParams, config: state.config, services: state.services };
      // the hooks run before the context exists: what they learn (the key, the validated headers) is
      // part of it, fixed for the whole request
      // a request line or Host that HTTP/1.1 refuses stops the request before any hook
      const refused = target.refused ?? hostError(req);
      const hooks = closing || refused !== null ? { learned: NOTHING_LEARNED, error: refused ?? undefined } : runHooks(endpoint, head);
      const ctx = buildContext(req, endpoint, head, hooks.learned, startedAt, log);
      inflight.add(ctx);
      users.set(state, (users.get(state) ?? 0) + 1);
      // in flight until the response is closed AND the handler returned (a chain's settle stage has
      // ended the reservation by then): shutdown must not close the store under a settle, and a
      // reload must not close the provider pool under a stream
      let ends = 2;
      const ended = (): void => {
        if (--ends > 0) return;
        inflight.delete(ctx);
        release(state);
      };
      const limits = state.config.connections;
      // 'close' comes once per response, the tick after 'finish' when it was sent: one plain listener
      // (no once wrapper, no second listener for 'finish')
      res.on('close', () => {
        if (!res.writableFinished) ctx.abort(errors.clientClosed());
        // an answer sent before the body was read (a refusal, a helper route): the rest of the body is
        // never read to its end, only dropped for a short while (lib/linger.ts)
        else if (!req.complete) drainBriefly(req, limits.refusedBodyDrainMs);
        ended();
      });
      lingerOnClose(req.socket, limits.refusedBodyDrainMs, () => !req.complete);
      let ranChain = false;
      let failed: GatewayError | undefined;
      let outcome: Outcome | undefined;
      try {
        if (closing) throw errors.shuttingDown();
        if (hooks.error !== undefined) throw hooks.error;
        if (endpoint.chain) {
          ranChain = true;
          await runPipeline(ctx, req, res, endpoint.chain);
        } else failed = (await endpoint.handle!(ctx, req, res)) ?? undefined;
      } catch (err) {
        const error = GatewayError.from(err);
        failed = error;
        if (error.code === 'GW_ERR_INTERNAL') ctx.log.error({ err: (err as Error)?.stack ?? String(err) }, 'unexpected error');
        outcome = writeError(ctx, res, error, !req.complete);
        req.resume();
      } finally {
        // a chain writes its summary line (and its metrics) in its settle stage; everything else here
        if (!ranChain) {
          const status = outcome?.status ?? res.statusCode;
          state.services.metrics?.requestEnded(ctx, status, 0, NO_FACTS);
          state.services.tracer?.requestEnded(ctx, status, 0, NO_FACTS, failed);
          if (ctx.logsInfo) ctx.log.info(requestSummary(ctx, status, failed, 0), 'request');
        }
        ended();
      }
    } catch (err) {
      log.error({ err: (err as Error)?.stack ?? String(err) }, 'request handler crashed');
      if (!res.headersSent) res.writeHead(500).end();
    }
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    void handle(req, res);
  };
  const limits = initial.config.connections;
  // Node's own timers: the request head (headersTimeout, checked every second) and idle keep-alive
  // connections. The body has the gateway's own clock (lib/body-clock.ts: time bounded by its size),
  // so Node's requestTimeout, which would bound every body by one fixed time, stays off. A missing
  // Host is checked by the gateway (request-target.ts), to answer it in the envelope.
  const server = createServer(
    { keepAliveTimeout: limits.keepAliveTimeoutMs, headersTimeout: limits.headersTimeoutMs, requestTimeout: 0, connectionsCheckingInterval: 1000, requireHostHeader: false },
    onRequest,
  );
  bodyBudget.resize(initial.config.maxBufferedBodyBytes);
  server.on(
    'clientError',
    clientErrorListener({ routes: () => current.routes, headersTimeoutMs: () => current.config.connections.headersTimeoutMs, lingerMs: () => current.config.connections.refusedBodyDrainMs, log }),
  );

  return {
    server,
    handle: onRequest,
    inflight: () => inflight.size,
    state: () => current,
    replace(next) {
      const prev = current;
      current = next;
      server.keepAliveTimeout = next.config.connections.keepAliveTimeoutMs;
      server.headersTimeout = next.config.connections.headersTimeoutMs;
      bodyBudget.resize(next.config.maxBufferedBodyBytes);
      if (prev === next || !users.has(prev)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        drained.set(prev, () => {
          drained.delete(prev);
          resolve();
        });
      });
    },
    async close() {
      closing = true;
      const deadline = Date.now() + current.config.shutdownGraceMs;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        let aborted = false;
        const tick = (): void => {
          if (inflight.size === 0) {
            // nothing in flight: what is left are idle sockets, including ones that never sent a
            // request (pre-connects), which closeIdleConnections keeps until headersTimeout
            server.closeAllConnections();
            return;
          }
          if (Date.now() >= deadline) {
            // abort what is left, then give each request a moment to end itself (a stream writes its
            // in-band error event, settle ends the reservation) before the sockets are cut
            if (!aborted) {
              aborted = true;
              for (const ctx of inflight) ctx.abort(errors.shutDownMidRequest());
            } else if (Date.now() >= deadline + ABORT_GRACE_MS) {
              server.closeAllConnections();
              return;
            }
          }
          server.closeIdleConnections();
          setTimeout(tick, 50).unref();
        };
        tick();
      });
      // The sockets are gone, but a request whose response already ended may still be settling
      // (its handler has not returned): wait for it, so the store is never closed under a settle.
      while (inflight.size > 0 && Date.now() < deadline + 2 * ABORT_GRACE_MS) await new Promise((r) => setTimeout(r, 5));
    },
  };
}
