// The gateway as a library: `createGateway(config)` does what bin/gateway does at start (validate and
// freeze the configuration, open the store, start the simulated provider when the config has one,
// build the endpoint table) and hands back the request handler instead of listening. A user mounts
// `handle` in their own node:http server (under a path prefix if they like), or listens on `server`.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { finalizeConfig, loadConfigFile, type Config } from './config.js';
import { defaultConfig } from './default-config.js';
import { createRootLogger } from './logger.js';
import { createGateway as createHttpGateway } from './server.js';
import { openSharedServices } from './services.js';
import { servingState } from './reload.js';
import type { EndpointTable } from './endpoints/index.js';

/** A configuration as written in gateway.config.json: the fields the schema gives defaults may be left out. */
export type GatewayConfig = Omit<Config, 'listen' | 'store' | 'storePool' | 'lease' | 'logLevel' | 'shutdownGraceMs' | 'pingIntervalMs' | 'maxBodyBytes' | 'maxBufferedBodyBytes' | 'connections' | 'router' | 'metrics'> &
  Partial<Pick<Config, 'store' | 'storePool' | 'lease' | 'logLevel' | 'shutdownGraceMs' | 'pingIntervalMs' | 'maxBodyBytes' | 'maxBufferedBodyBytes'>> & { listen?: Partial<Config['listen']>; connections?: Partial<Config['connections']>; router?: Partial<Config['router']>; metrics?: Partial<Config['metrics']> };

export interface GatewayOptions {
  /** serve the endpoints under this path: '/llm' answers '/llm/v1/messages'; default: at the root */
  prefix?: string;
  /** the root logger (each request logs through a child of it); default: pino at `logLevel` on stdout */
  logger?: Logger;
  /** the environment `${NAME}` placeholders in the configuration are read from; default `process.env` */
  env?: NodeJS.ProcessEnv;
  /** the endpoint table (lib/endpoints/index.ts `endpoints`, or your own list of EndpointDefinitions); default: every endpoint */
  endpoints?: EndpointTable;
}

export interface Gateway {
  /** the validated, frozen configuration in use (defaults applied) */
  readonly config: Config;
  /**
   * Answer one request. Returns false, without touching the request, when its path is outside the
   * prefix (the caller answers it); true when the gateway took it (it writes the response itself).
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /**
   * The gateway's own node:http server, not yet listening (`server.listen(port, host)`; `config.listen`
   * is not applied). It serves the endpoints at the root: `prefix` applies to `handle` only.
   */
  readonly server: Server;
  /** the built-in demo key when no configuration was given (simulated providers only), else null */
  readonly demoKey: string | null;
  /** requests in flight */
  inflight(): number;
  /** stop taking requests, let in-flight ones finish (`shutdownGraceMs`), then close the store and providers */
  close(): Promise<void>;
}

/** '/llm/' → '/llm'; '' and '/' → '' (no prefix). */
function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined) return '';
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** The part of the request target under the prefix ('/v1/messages?x'), or null when it is outside. */
function underPrefix(url: string, prefix: string): string | null {
  if (!url.startsWith(prefix)) return null;
  const rest = url.slice(prefix.length);
  if (rest === '') return '/';
  if (rest[0] === '/') return rest;
  if (rest[0] === '?') return `/${rest}`;
  return null; // '/llmx' is not under '/llm'
}

/**
 * Build a gateway from a configuration object (the shape of gateway.config.json), the path of a
 * configuration file, or nothing (the built-in default: simulated providers and a demo key).
 * Rejects with GW_ERR_CONFIG_INVALID, as bin/gateway does at start, when the configuration is wrong.
 */
export async function createGateway(config?: GatewayConfig | Config | string, options: GatewayOptions = {}): Promise<Gateway> {
  const env = options.env ?? process.env;
  let final: Config;
  let demoKey: string | null = null;
  if (typeof config === 'string') {
    final = loadConfigFile(config, env);
  } else if (config === undefined) {
    const built = defaultConfig(env);
    final = finalizeConfig(built.config, env);
    demoKey = built.demoKey;
  } else {
    final = finalizeConfig(config, env);
  }
  const log = options.logger ?? createRootLogger(final.logLevel);
  const shared = await openSharedServices(final, log, { env });
  if (shared.released > 0) log.warn({ released: shared.released }, 'released reservations left by a previous process');
  const state = servingState(final, shared, options.endpoints);
  const http = createHttpGateway(state, log);
  const prefix = normalizePrefix(options.prefix);

  let closed: Promise<void> | undefined;
  return {
    config: final,
    server: http.server,
    demoKey,
    inflight: () => http.inflight(),
    handle(req, res) {
      if (prefix !== '') {
        const inner = underPrefix(req.url ?? '/', prefix);
        if (inner === null) return false;
        req.url = inner;
      }
      http.handle(req, res);
      return true;
    },
    close() {
      closed ??= http.close().then(() => state.services.providers.close()).then(() => shared.close());
      return closed;
    },
  };
}
