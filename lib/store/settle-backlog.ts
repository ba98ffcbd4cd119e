// Settles (and releases) whose commit the store refused (disk full, read-only file, I/O error):
// kept in memory and retried with backoff until one commit takes them all, never dropped. The
// reservation row stays in the store meanwhile, so the hold keeps covering the cost, and the claim
// rule (deleting the row is the claim) makes a retry that already took effect a no-op.
//
// Why memory and not a journal file: the journal would sit on the disk that just refused a write
// (full, or read-only), so it would fail in the very case it is for. Instead, at shutdown the
// backlog gets a last bounded try (`drain`); what is still left is returned to the caller, which
// logs every reservation with the charge it was due and exits non-zero. The next start releases
// those holds (stale reservations are released at start), and the log line says what to charge.
import type { Reservation, UsageRecord } from './types.js';
import { isStoreUnwritable } from './store-errors.js';

/** A settle (charge) or release waiting for the store. */
export interface PendingEnd {
  reservation: Reservation;
  record: UsageRecord;
}

/** What is left unsettled at shutdown, one entry per reservation (safe to log: ids and amounts). */
export interface Unsettled {
  reservation: string;
  requestId: string;
  keyId: string;
  org: string;
  reservedUnits: number;
  /** what the end was due to charge (0: a release) */
  chargeUnits: number;
}

/** The part of a logger the backlog reports to (pino's Logger fits). */
export interface BacklogLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 5000;

export class SettleBacklog {
  private readonly pending = new Map<string, PendingEnd>();
  private timer: NodeJS.Timeout | null = null;
  private delayMs = FIRST_DELAY_MS;
  private failures = 0;
  log: BacklogLog | null = null;

  /** `commit` writes the given ends in one transaction, or throws/rejects (the store refused it). */
  constructor(private readonly commit: (ends: readonly PendingEnd[]) => void | Promise<void>) {}

  get size(): number {
    return this.pending.size;
  }

  /** Seconds a client should wait before retrying a request the backlog made the gateway refuse. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.delayMs / 1000));
  }

  /** Keep ends whose commit failed (`cause`), and schedule a retry. */
  add(ends: readonly PendingEnd[], cause: unknown): void {
    for (const end of ends) this.pending.set(end.reservation.id, end);
    this.log?.error({ reservations: ends.map((e) => e.reservation.id), pending: this.pending.size, err: String(cause) }, 'settle failed: the store cannot be written; retrying');
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== null || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void Promise.resolve(this.attempt()).then((done) => {
        if (!done) this.schedule();
      });
    }, this.delayMs);
    this.timer.unref();
  }

  /** One try at committing every pending end; true when the backlog is empty after it (a promise when the commit is one). */
  private attempt(): boolean | Promise<boolean> {
    const ends = [...this.pending.values()];
    if (ends.length === 0) return true;
    let committed: void | Promise<void>;
    try {
      committed = this.commit(ends);
    } catch (err) {
      return this.failed(ends, err);
    }
    if (committed instanceof Promise) return committed.then(() => this.succeeded(ends), (err: unknown) => this.failed(ends, err));
    return this.succeeded(ends);
  }

  private failed(ends: readonly PendingEnd[], err: unknown): false {
    this.failures++;
    this.delayMs = Math.min(MAX_DELAY_MS, this.delayMs * 2);
    const fields = { pending: ends.length, attempts: this.failures, nextRetryMs: this.delayMs, err: String(err) };
    if (isStoreUnwritable(err)) this.log?.warn(fields, 'settle retry failed: the store still cannot be written');
    else this.log?.error(fields, 'settle retry failed');
    return false;
  }

  private succeeded(ends: readonly PendingEnd[]): true {
    for (const end of ends) this.pending.delete(end.reservation.id);
    this.log?.info({ settled: ends.length, attempts: this.failures + 1 }, 'settles committed after retry');
    this.failures = 0;
    this.delayMs = FIRST_DELAY_MS;
    return true;
  }

  /**
   * Shutdown: retry at once, then with short synchronous waits for up to `budgetMs`; returns what is
   * still unsettled (empty: everything committed).
   */
  drain(budgetMs: number, sleep: (ms: number) => void): Unsettled[] {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const end = Date.now() + budgetMs;
    let wait = 50;
    while (!this.attempt() && Date.now() + wait <= end) {
      sleep(wait);
      wait = Math.min(wait * 2, 500);
    }
    return this.unsettled();
  }

  /** `drain` for a store whose commit is asynchronous (PostgreSQL). */
  async drainAsync(budgetMs: number): Promise<Unsettled[]> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const end = Date.now() + budgetMs;
    let wait = 50;
    while (!(await this.attempt()) && Date.now() + wait <= end) {
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 500);
    }
    return this.unsettled();
  }

  unsettled(): Unsettled[] {
    return [...this.pending.values()].map(({ reservation: r, record }) => ({
      reservation: r.id,
      requestId: r.requestId,
      keyId: r.keyId,
      org: record.org,
      reservedUnits: r.amount,
      chargeUnits: record.cost,
    }));
  }
}
