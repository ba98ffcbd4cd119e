// What a failure of the store (SQLite, or PostgreSQL's errors below) means: a write the store refused for now (disk full, read-only
// file, I/O error, locked too long), which is retried and answered 503, versus anything else; and,
// at start, a one-line error that names the file and says how to fix it instead of a stack trace.
import type { GatewayError } from '../errors.js';
import { errors } from '../errors/index.js';

/** better-sqlite3's SqliteError and Node's system errors both carry a string `code`. */
function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** SQLite result codes (and extended ones: SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED...) of a store that cannot take writes now. */
const UNWRITABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|PROTOCOL|NOMEM)/;

/**
 * PostgreSQL SQLSTATEs and socket errors of a database that cannot take writes now: connection
 * exceptions (08), insufficient resources (53), shutting down or starting (57P01-57P03), a
 * read-only standby (25006), and the connection refused, reset or timed out.
 */
const PG_UNWRITABLE = /^(08...|53...|57P0[123]|25006|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN)$/;
const PG_CLIENT_GONE = /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/;

/** The store refused a write for a reason that may pass (free space, a writable file again, the database back). */
export function isStoreUnwritable(err: unknown): boolean {
  const code = codeOf(err);
  if (UNWRITABLE.test(code) || PG_UNWRITABLE.test(code)) return true;
  return code === '' && err instanceof Error && PG_CLIENT_GONE.test(err.message);
}

/** What to do about a store that cannot be opened, by the error's code. */
function fixFor(code: string): string {
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') {
    return 'The file or its folder is read-only: make both writable by this user (SQLite writes a -wal and a -shm file beside it), or set `store` in the config to a writable path.';
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return 'The file is not a gateway store (or is damaged): set `store` in the config to another path, or move the file away to start a new store.';
  }
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC') return 'The disk is full: free space on it, or set `store` in the config to a path on another disk.';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'Another process holds the store locked: stop it, or set `store` in the config to another path.';
  return 'Check that the folder exists and that this user may create and write files in it, or set `store` in the config to another path (sqlite:PATH).';
}

/** The start-up error for a store that cannot be opened, migrated or seeded (message: file, reason, fix). */
export function storeOpenError(file: string, err: unknown): GatewayError {
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  const reason = code !== '' && !message.includes(code) ? `${message} (${code})` : message;
  return errors.storeUnopenable(file, reason, fixFor(code));
}
