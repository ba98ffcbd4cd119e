// The services a request uses. Some live as long as the process (the store, rate-limit buckets,
// sticky sessions, the simulated provider); the catalog and the provider pool are built from one
// configuration, and a reload (SIGHUP) builds new ones while requests in flight keep the old.
//
// Rate limits, sticky sessions and key revocation are kept where the deployment shares them:
// in Redis when `limits` is set (every replica), else in the cluster primary under --workers (every
// worker of one machine), else in this process.
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
import type { SimProvider } from './sim/server.js';
import type { SimSearch } from './sim/search-server.js';
import { createSearchRunner, type SearchRunner } from './search/runner.js';
import type { WebSearchConfig } from './search/types.js';
import type { Bus } from './limits/bus.js';
import { RedisRateLimiter } from './limits/redis-rate-limit.js';
import { loadStickyFromRedis, shareSticky } from './limits/sticky-sync.js';
import type { WorkerLink } from './cluster/worker-link.js';

/** One thing /readyz checks: null when ready, else what is wrong. */
export interface ReadyProbe {
  name: string;
  problem(): string | null | Promise<string | null>;
}

/** how long /readyz waits for the store to answer its trivial query */
const PING_TIMEOUT_MS = 1000;

/** The store is ready: no settle waiting for it, and it answers a trivial query within a second. */
async function storeProblem(store: GatewayStore): Promise<string | null> {
  if (!store.ledger.writable()) return 'settles are waiting for the store to take writes';
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(() => store.ping()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
      }),
    ]);
    return null;
  } catch (err) {
    return `the store does not answer: ${(err as Error)?.message ?? String(err)}`;
  } finally {
    clearTimeout(timer);
  }
}
import { AdminCredentials } from './admin/credential.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { openTracer } from './tracing/open-tracer.js';
import type { RequestTracer } from './tracing/tracer-api.js';

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
  /** what /readyz checks (lib/endpoints/health.ts); none: always ready */
  probes?: readonly ReadyProbe[];
  /** the admin keys of this configuration (hashed): admin routes and /metrics */
  admin?: AdminCredentials;
  /** the Prometheus series (one per process, kept across reloads); absent when `metrics.enabled` is false */
  metrics?: GatewayMetrics;
  /** the admin API changed a key: tell the processes sharing the limits (Redis, the cluster primary) */
  keysChanged?: () => void;
  /** a span per request over OTLP (lib/tracing/); absent when tracing is not configured */
  tracer?: RequestTracer;
  /** web search run by the gateway (decisions §11); absent or not `enabled` without a backend */
  search?: SearchRunner;
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
  /** the in-process simulated search backend, when a config has had a simulated one */
  simSearch: SimSearch | null;
  /** reservations of dead processes (their lease gone or expired) released at start */
  released: number;
  probes: readonly ReadyProbe[];
  /** the Prometheus series: a reload keeps them */
  metrics: GatewayMetrics;
  /** OpenTelemetry traces, opened at start when configured (a reload keeps them: changing `otel` needs a restart) */
  tracer: RequestTracer | null;
  /** the environment the process started with (GATEWAY_ADMIN_KEY is read from it at each reload) */
  env: NodeJS.ProcessEnv;
  /** a reload changed the keys: every process sharing the limits forgets its cached keys */
  keysChanged(): void;
  close(): Promise<void>;
}

export interface SharedOptions {
  /** this process is a cluster worker: without Redis, the primary keeps the limits and relays pins */
  worker?: WorkerLink | null;
  /** the process environment (GATEWAY_ADMIN_KEY); default process.env */
  env?: NodeJS.ProcessEnv;
}

export async function openSharedServices(config: Config, log: Logger, opts: SharedOptions = {}): Promise<SharedServices> {
  const env = opts.env ?? process.env;
  // a bad GATEWAY_ADMIN_KEY stops the start before anything is opened
  AdminCredentials.of(config, env);
  // Redis first: a gateway that cannot reach it refuses to start before it touches the store
  // the Redis client (ioredis) is loaded only when `limits` is set: a few MB of start-up otherwise
  const limits = config.limits;
  const redis = limits === undefined ? null : await (await import('./limits/redis.js')).RedisLimits.connect(limits);
  const worker = opts.worker ?? null;
  let store: GatewayStore;
  let lease: LeaseKeeper;
  let released: number;
  try {
    store = await openStore(config);
  } catch (err) {
    await redis?.close();
    throw err;
  }
  try {
    await store.seed(config);
    // the lease before the first hold: a sweep on another process must see this one alive
    lease = new LeaseKeeper(store, config.lease ?? DEFAULT_LEASE, log);
    released = await lease.start();
    await store.startServing(log);
  } catch (err) {
    await store.close();
    await redis?.close();
    throw err;
  }
  const sticky = new StickyRoutes();
  const bus: Bus | null = redis ?? worker;
  if (bus !== null) {
    shareSticky(sticky, bus, redis?.client ?? null);
    const keys = store;
    bus.subscribe((msg) => {
      if (msg.topic === 'keys') keys.forgetKeys?.();
    });
  }
  // without Redis the primary holds the pins for a worker that (re)starts
  if (worker !== null && redis === null) worker.attachSticky(sticky);
  if (redis !== null) {
    const pins = await loadStickyFromRedis(sticky, redis.client).catch(() => 0);
    log.debug({ pins }, 'sticky sessions loaded from redis');
  }
  const probes: ReadyProbe[] = [{ name: 'store', problem: () => storeProblem(store) }];
  if (redis !== null) probes.push({ name: 'limits', problem: () => redis.problem() });
  log.debug({ released, store: store.kind, limits: redis !== null ? 'redis' : worker !== null ? 'cluster primary' : 'process' }, 'store ready');
  // lazily imported: without tracing configured no OpenTelemetry module is loaded
  const tracer = await openTracer(config, env);
  if (tracer !== null) log.info({ otel: config.otel?.endpoint ?? 'OTEL_EXPORTER_OTLP_* environment' }, 'traces exported over OTLP/HTTP');
  const shared: SharedServices = {
    store,
    rateLimiter: redis !== null ? new RedisRateLimiter(redis.client) : (worker ?? new InProcessRateLimiter()),
    sticky,
    sim: null,
    simSearch: null,
    released,
    probes,
    keysChanged: () => bus?.publish({ topic: 'keys' }),
    metrics: new GatewayMetrics(),
    tracer,
    env,
    async close() {
      await shared.sim?.close();
      await tracer?.close();
      await shared.simSearch?.close();
      await lease.stop();
      await redis?.close();
      await store.close();
    },
  };
  shared.metrics.readReservationsWith(() => store.ledger.openReservations());
  await ensureSimProvider(shared, config);
  return shared;
}

/** Starts the simulated provider when the config has a simulated provider and none runs yet. */
export async function ensureSimProvider(shared: SharedServices, config: Config): Promise<void> {
  // imported only when needed: a gateway with real providers never loads the simulators
  if (shared.sim === null && config.providers.some((p) => p.simulated)) shared.sim = await (await import('./sim/server.js')).startSimProvider({ host: '127.0.0.1', port: 0 });
  if (shared.simSearch === null && config.webSearch?.backends.some((b) => b.simulated === true)) shared.simSearch = await (await import('./sim/search-server.js')).startSimSearch({ host: '127.0.0.1', port: 0 });
}

/** The `webSearch` block with each simulated backend pointed at the in-process simulated backend. */
function searchConfig(ws: WebSearchConfig | undefined, simSearch: SimSearch | null): WebSearchConfig | undefined {
  if (ws === undefined || !ws.backends.some((b) => b.simulated === true)) return ws;
  if (simSearch === null) throw new Error('a search backend is simulated but no simulated search backend runs');
  return { ...ws, backends: ws.backends.map((b) => (b.simulated === true ? { ...b, baseUrl: simSearch.url, apiKey: 'sim-key' } : b)) };
}

/** The services of one configuration: its own catalog and provider pool, the shared rest. */
export function servicesFor(config: Config, shared: SharedServices): Services {
  const catalog = new Catalog(config);
  const providers = new ProviderPool(config, shared.sim?.url ?? null);
  const admin = AdminCredentials.of(config, shared.env);
  const services: Services = {
    store: shared.store,
    catalog,
    providers,
    rateLimiter: shared.rateLimiter,
    sticky: shared.sticky,
    // read at the first gateway-auto request (~40 ms, once per process), not at start: the weights
    // are ~11 MB of resident memory a gateway that never routes automatically does not need
    get router(): Router {
      return loadRouter();
    },
    probes: shared.probes,
    admin,
    keysChanged: shared.keysChanged,
  };
  if (config.webSearch !== undefined) services.search = createSearchRunner(searchConfig(config.webSearch, shared.simSearch));
  if (config.metrics.enabled) services.metrics = shared.metrics;
  if (shared.tracer !== null) services.tracer = shared.tracer;
  if (config.recordDir !== undefined) services.recorder = new Recorder(config.recordDir);
  return services;
}
