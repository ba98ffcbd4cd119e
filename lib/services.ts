// The services a request uses. Some live as long as the process (the store, rate-limit buckets,
// sticky sessions, the simulated provider); the catalog and the provider pool are built from one
// configuration, and a reload (SIGHUP) builds new ones while requests in flight keep the old.
import type { Logger } from 'pino';
import { Catalog } from './catalog.js';
import type { Config } from './config.js';
import { Store } from './store/store.js';
import { ProviderPool } from './providers/pool.js';
import { InProcessRateLimiter, type RateLimiter } from './rate-limit.js';
import { loadRouter } from './router/index.js';
import type { Router } from './router/router-api.js';
import { StickyRoutes } from './sticky.js';
import { Recorder } from './providers/recorder.js';
import { startSimProvider, type SimProvider } from './sim/server.js';
import { AdminCredentials } from './admin/credential.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';

export interface Services {
  store: Store;
  catalog: Catalog;
  providers: ProviderPool;
  rateLimiter: RateLimiter;
  /** sessions pinned to the model gateway-auto chose for them */
  sticky?: StickyRoutes;
  /** gateway-auto's learned router (its shipped weights, read once per process) */
  router: Router;
  /** writes upstream response bytes to `config.recordDir` (bin/gateway --record) */
  recorder?: Recorder;
  /** the admin keys of this configuration (hashed): admin routes and /metrics */
  admin?: AdminCredentials;
  /** the Prometheus series (one per process, kept across reloads); absent when `metrics.enabled` is false */
  metrics?: GatewayMetrics;
}

/**
 * What outlives a reload: the store (its URL needs a restart), the rate-limit buckets and sticky
 * sessions (a reload must not reset a key's limits), and the simulated provider once started.
 */
export interface SharedServices {
  store: Store;
  rateLimiter: RateLimiter;
  sticky: StickyRoutes;
  /** the in-process simulated provider, when a config has had a simulated provider */
  sim: SimProvider | null;
  /** reservations of a crashed process released at start */
  released: number;
  /** the Prometheus series: a reload keeps them */
  metrics: GatewayMetrics;
  /** the environment the process started with (GATEWAY_ADMIN_KEY is read from it at each reload) */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function openSharedServices(config: Config, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<SharedServices> {
  // a bad GATEWAY_ADMIN_KEY stops the start before anything is opened
  AdminCredentials.of(config, env);
  const store = new Store(config.store);
  store.seed(config);
  const released = store.ledger.releaseStale();
  store.startCheckpointer(250, (err) => log.warn({ err: err.message }, 'WAL checkpointer: falling back to SQLite automatic checkpoints'));
  log.debug({ released }, 'store ready');
  const shared: SharedServices = {
    store,
    rateLimiter: new InProcessRateLimiter(),
    sticky: new StickyRoutes(),
    sim: null,
    released,
    metrics: new GatewayMetrics(),
    env,
    async close() {
      await shared.sim?.close();
      store.close();
    },
  };
  shared.metrics.readReservationsWith(() => store.ledger.openReservations());
  await ensureSimProvider(shared, config);
  return shared;
}

/** Starts the simulated provider when the config has a simulated provider and none runs yet. */
export async function ensureSimProvider(shared: SharedServices, config: Config): Promise<void> {
  if (shared.sim === null && config.providers.some((p) => p.simulated)) shared.sim = await startSimProvider({ host: '127.0.0.1', port: 0 });
}

/** The services of one configuration: its own catalog and provider pool, the shared rest. */
export function servicesFor(config: Config, shared: SharedServices): Services {
  const catalog = new Catalog(config);
  const providers = new ProviderPool(config, shared.sim?.url ?? null);
  const admin = AdminCredentials.of(config, shared.env);
  const services: Services = { store: shared.store, catalog, providers, rateLimiter: shared.rateLimiter, sticky: shared.sticky, router: loadRouter(), admin };
  if (config.metrics.enabled) services.metrics = shared.metrics;
  if (config.recordDir !== undefined) services.recorder = new Recorder(config.recordDir);
  return services;
}
