// `sqlite:PATH` store URLs. A relative PATH in a config file means relative to that file's
// directory, so `--config /etc/gw/gateway.config.json` finds the same ledger from any working
// directory; the built-in default (no file) keeps `sqlite:data/gateway.db` under the working directory.
import { isAbsolute, resolve } from 'node:path';

const SCHEME = 'sqlite:';
const MEMORY = ':memory:';

/** The database file a store URL names, or null for the in-memory store. */
export function storeFile(url: string): string | null {
  if (!url.startsWith(SCHEME)) throw new Error(`unsupported store URL ${url}`);
  const path = url.slice(SCHEME.length);
  return path === MEMORY ? null : path;
}

/** The store URL with a relative file path made absolute against `baseDir`; others unchanged. */
export function resolveStoreUrl(url: string, baseDir: string): string {
  if (!url.startsWith(SCHEME)) return url;
  const path = storeFile(url);
  return path === null || isAbsolute(path) ? url : `${SCHEME}${resolve(baseDir, path)}`;
}
