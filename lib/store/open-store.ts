// Opens the store a config names: SQLite for `sqlite:` URLs, PostgreSQL for `postgres://` ones (its
// client is loaded only then, so the embedded default does not pay for it at start).
import type { Config } from '../config.js';
import type { GatewayStore } from './store-api.js';
import { Store } from './store.js';
import { isPostgresUrl } from './store-url.js';

export interface OpenStoreOptions {
  /** open an existing store only (the credits CLI): never create a SQLite file */
  mustExist?: boolean;
}

export async function openStore(config: Pick<Config, 'store' | 'storePool'>, opts: OpenStoreOptions = {}): Promise<GatewayStore> {
  if (!isPostgresUrl(config.store)) return new Store(config.store, opts);
  const { PgStore } = await import('./pg/pg-store.js');
  return PgStore.open(config.store, { pool: config.storePool ?? 10 });
}
