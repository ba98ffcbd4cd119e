// The store (the SQLite ledger) cannot be opened or written: refused at start, or answered 503 with
// `retry-after` before any provider work while a settle waits for the store to take writes again.
import { defineError } from '../errors.js';

export const storeErrors = {
  /** start-up: the store file cannot be opened or prepared; `fix` says what to do (store-errors.ts) */
  storeUnopenable: defineError('GW_ERR_CONFIG_INVALID', (file: string, reason: string, fix: string) => `Invalid configuration: store: cannot open ${file}: ${reason}. ${fix}`, { status: 500 }),
  /** a new request while the store refuses writes (disk full, read-only file) or settles wait for it */
  storeUnwritable: defineError(
    'GW_ERR_UNAVAILABLE',
    (_retryAfterSeconds: number, _cause?: unknown) => 'The gateway cannot record billing right now (its store cannot be written); nothing was processed. Retry shortly.',
    (retryAfterSeconds: number, cause?: unknown) => ({ headers: { 'retry-after': String(retryAfterSeconds) }, cause }),
  ),
  /** a settle whose commit failed: the ledger keeps it and retries (never sent: the answer went out) */
  settleDeferred: defineError('GW_ERR_UNAVAILABLE', (_cause: unknown) => 'The store could not be written; the settle is retried in the background.', (cause) => ({ cause })),
};
