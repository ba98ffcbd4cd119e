// Store URLs: `sqlite:PATH` (embedded) or `postgres://user:password@host:port/db` (pg/pg-store.ts). A relative PATH in a config file means relative to that file's
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

/** Whether a store URL names a PostgreSQL database. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/** The store URL as it may be logged or shown: a PostgreSQL password is replaced by `***`. */
export function redactStoreUrl(url: string): string {
  if (!isPostgresUrl(url)) return url;
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    // not a URL we can take apart: show nothing that could be a password
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}
