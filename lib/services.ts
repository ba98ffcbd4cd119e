// Shared, long-lived services built once at start and handed to every request context.
import type { Logger } from 'pino';
import { Catalog } from './catalog.js';
import type { Config } from './config.js';
import { Store } from './store/store.js';
import { ProviderPool } from './providers/pool.js';
import { InProcessRateLimiter, type RateLimiter } from './rate-limit.js';
import { StickyRoutes } from './sticky.js';
import { Recorder } from './providers/recorder.js';
import { startSimProvider, type SimProvider } from './sim/server.js';

export interface Services {
  store: Store;
  catalog: Catalog;
  providers: ProviderPool;
  rateLimiter: RateLimiter;
  /** sessions pinned to the model gateway-auto chose for them */
  sticky?: StickyRoutes;
  /** writes upstream response bytes to `config.recordDir` (bin/gateway --record) */
  recorder?: Recorder;
}

export interface RunningServices {
  services: Services;
  /** the in-process simulated provider, when the config has a simulated provider */
  sim: SimProvider | null;
  /** reservations of a crashed process released at start */
  released: number;
  close(): Promise<void>;
}

export async function buildServices(config: Config, log: Logger): Promise<RunningServices> {
  const store = new Store(config.store);
  store.seed(config);
  const released = store.ledger.releaseStale();
  store.startCheckpointer(250, (err) => log.warn({ err: err.message }, 'WAL checkpointer: falling back to SQLite automatic checkpoints'));
  log.debug({ released }, 'store ready');
  const sim = config.providers.some((p) => p.simulated) ? await startSimProvider({ host: '127.0.0.1', port: 0 }) : null;
  const providers = new ProviderPool(config, sim?.url ?? null);
  const services: Services = { store, catalog: new Catalog(config), providers, rateLimiter: new InProcessRateLimiter(), sticky: new StickyRoutes() };
  if (config.recordDir !== undefined) services.recorder = new Recorder(config.recordDir);
  return {
    services,
    sim,
    released,
    async close() {
      await providers.close();
      await sim?.close();
      store.close();
    },
  };
}
