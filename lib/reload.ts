// SIGHUP: reload the configuration without a restart. The config is resolved exactly as at start
// (same --config, default file or built-in default, same environment) and validated fully; a config
// that fails, or that changes a setting only a restart can apply, is refused and the old one kept
// entirely. Otherwise the store's orgs and keys are reconciled with it and a new serving state
// (catalog, provider pool, route table) takes the new requests, while requests in flight finish on
// the state they started with; its provider pool is closed once the last of them has settled.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { redactStoreUrl } from './store/store-url.js';
import { buildRoutes, endpoints as defaultEndpoints, type EndpointTable } from './endpoints/index.js';
import { GatewayError } from './errors.js';
import { redactRedisUrl } from './limits/redis-url.js';
import type { ProviderPool } from './providers/pool.js';
import type { Gateway, ServingState } from './server.js';
import { ensureSimProvider, servicesFor, type SharedServices } from './services.js';

/** The serving state of a configuration: its services and its routes, built from an endpoint table. */
export function servingState(config: Config, shared: SharedServices, table: EndpointTable = defaultEndpoints): ServingState {
  return { config, services: servicesFor(config, shared), routes: buildRoutes(table, config) };
}

/** Settings read once, when the process starts: a reload that changes one is refused. */
const RESTART_ONLY: readonly { path: string; of: (c: Config) => unknown }[] = [
  { path: 'listen.host', of: (c) => c.listen.host },
  { path: 'listen.port', of: (c) => c.listen.port },
  { path: 'store', of: (c) => redactStoreUrl(c.store) },
  { path: 'storePool', of: (c) => c.storePool },
  { path: 'lease', of: (c) => JSON.stringify(c.lease) },
  { path: 'limits', of: (c) => (c.limits === undefined ? undefined : redactRedisUrl(c.limits)) },
];

export function restartOnlyChanges(before: Config, after: Config): string[] {
  return RESTART_ONLY.filter((s) => s.of(before) !== s.of(after)).map((s) => s.path);
}

function describeChange(path: string, before: Config, after: Config): string {
  const s = RESTART_ONLY.find((r) => r.path === path)!;
  // a PostgreSQL store URL's or a Redis URL's password is never printed (redactStoreUrl, redactRedisUrl)
  return `${path} (${JSON.stringify(s.of(before))} → ${JSON.stringify(s.of(after))})`;
}

export class ConfigReloader {
  /** reloads run one at a time, in the order the signals came */
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  /** provider pools of replaced states still in use, closing once their requests have ended */
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    private readonly resolve: () => { config: Config; source: string },
    private readonly gateway: Gateway,
    private readonly shared: SharedServices,
    private readonly log: Logger,
  ) {}

  reload(): Promise<void> {
    this.queue = this.queue.then(() => this.reloadOnce());
    return this.queue;
  }

  private async reloadOnce(): Promise<void> {
    if (this.stopped) return;
    const prev = this.gateway.state();
    let config: Config;
    let source: string;
    try {
      ({ config, source } = this.resolve());
    } catch (err) {
      this.refuse(err);
      return;
    }
    const changed = restartOnlyChanges(prev.config, config);
    if (changed.length > 0) {
      const what = changed.map((p) => describeChange(p, prev.config, config)).join(', ');
      this.refuse(`${what} cannot change without a restart: restart the gateway to apply it`, source, { restartNeeded: changed });
      return;
    }
    let next: ServingState;
    try {
      await ensureSimProvider(this.shared, config);
      next = servingState(config, this.shared, this.gateway.state().routes.table);
    } catch (err) {
      this.refuse(err, source);
      return;
    }
    try {
      // a transaction: if it fails, the store is as it was and the old state keeps serving
      await this.shared.store.seed(config);
      // replicas and workers that did not get this SIGHUP stop honouring a revoked key now
      this.shared.keysChanged();
    } catch (err) {
      void next.services.providers.close();
      this.refuse(err, source);
      return;
    }
    if (this.stopped) {
      // shutdown began while the simulated provider was starting: nothing new is served any more
      void next.services.providers.close();
      return;
    }
    this.log.level = config.logLevel;
    const inflight = this.gateway.inflight();
    const old = prev.services.providers;
    this.retire(old, this.gateway.replace(next));
    this.log.info(
      { config: source, models: config.models.length, keys: config.keys?.length ?? 0, orgs: config.orgs?.length ?? 0, providers: config.providers.length, inflight },
      'config reloaded',
    );
  }

  private retire(pool: ProviderPool, unused: Promise<void>): void {
    const closing = unused
      .then(() => pool.close())
      .catch((err: unknown) => this.log.warn({ err: String(err) }, 'closing a replaced provider pool failed'))
      .finally(() => this.retiring.delete(closing));
    this.retiring.add(closing);
  }

  /** One error line; `err` names the field, as the start-up error would. The old config stays in use. */
  private refuse(err: unknown, source?: string, extra: Record<string, unknown> = {}): void {
    const message = typeof err === 'string' ? err : GatewayError.is(err) || err instanceof Error ? err.message : String(err);
    this.log.error({ err: `${message}; the old configuration stays in use`, ...(source !== undefined ? { config: source } : {}), ...extra }, 'config reload refused');
  }

  /**
   * Shutdown, after the server has closed (no request in flight): no more reloads; the replaced
   * pools are closed by then, the current one is closed here.
   */
  async close(): Promise<void> {
    this.stopped = true;
    await this.queue;
    await Promise.all(this.retiring);
    await this.gateway.state().services.providers.close();
  }
}
