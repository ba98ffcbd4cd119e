// The services a request uses. Some live as long as the process (the store, rate-limit buckets,
// sticky sessions, the simulated provider); the catalog and the provider pool are built from one
// configuration, and a reload (SIGHUP) builds new ones while requests in flight keep the old.
import type { Logger } from 'pino';
import { Catalog } from './catalog.js';
import type { Config } from './config.js';
import { openStore } from './store/open-store.js';
import type { GatewayStore } from './store/store-api.js';
import { DEFAULT_LEASE, LeaseKeeper } from './store/lease.js';
import { ProviderPool } from './providers/pool.js';
import { InProcessRateLimiter, type RateLimiter } from './rate-limit.js';
import { loadRouter } from './router/index.js';
import type { Router } from './router/router-api.js';
import { StickyRoutes } from './sticky.js';
import { Recorder } from './providers/recorder.js';
import { startSimProvider, type SimProvider } from './sim/server.js';

export interface Services {
  store: GatewayStore;
  catalog: Catalog;
  providers: ProviderPool;
  rateLimiter: RateLimiter;
  /** sessions pinned to the model gateway-auto chose for them */
  sticky?: StickyRoutes;
  /** gateway-auto's learned router (its shipped weights, read once per process) */
  router: Router;
  /** writes upstream response bytes to `config.recordDir` (bin/gateway --record) */
  recorder?: Recorder;
}

/**
 * What outlives a reload: the store (its URL needs a restart), the rate-limit buckets and sticky
 * sessions (a reload must not reset a key's limits), and the simulated provider once started.
 */
export interface SharedServices {
  store: GatewayStore;
  rateLimiter: RateLimiter;
  sticky: StickyRoutes;
  /** the in-process simulated provider, when a config has had a simulated provider */
  sim: SimProvider | null;
  /** reservations of dead processes (their lease gone or expired) released at start */
  released: number;
  close(): Promise<void>;
}

export async function openSharedServices(config: Config, log: Logger): Promise<SharedServices> {
  const store = await openStore(config);
  let lease: LeaseKeeper;
  let released: number;
  try {
    await store.seed(config);
    // the lease before the first hold: a sweep on another process must see this one alive
    lease = new LeaseKeeper(store, config.lease ?? DEFAULT_LEASE, log);
    released = await lease.start();
    await store.startServing(log);
  } catch (err) {
    await store.close();
    throw err;
  }
  log.debug({ released, store: store.kind }, 'store ready');
  const shared: SharedServices = {
    store,
    rateLimiter: new InProcessRateLimiter(),
    sticky: new StickyRoutes(),
    sim: null,
    released,
    async close() {
      await shared.sim?.close();
      await lease.stop();
      await store.close();
    },
  };
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
  const services: Services = { store: shared.store, catalog, providers, rateLimiter: shared.rateLimiter, sticky: shared.sticky, router: loadRouter() };
  if (config.recordDir !== undefined) services.recorder = new Recorder(config.recordDir);
  return services;
}
