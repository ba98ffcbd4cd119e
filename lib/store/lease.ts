// Leases: how a sweep tells the holds of a dead process from those of a live one, on either store.
//
// Every serving process has an owner id (the store's `bootId`, written into each reservation it
// takes as `boot_id`) and a row in `leases` that it renews every `renewMs` with an expiry
// `expireMs` ahead. A sweep (at start, then at each renewal, on every live process) releases the
// open reservations of owners that are not alive: no lease row (a process that never took one, or
// ended it at a clean shutdown), an expired lease (killed, frozen, or cut off from the store for
// longer than `expireMs`), or, on the same machine and PID namespace, a lease whose pid no longer
// exists (so a restart after SIGKILL frees the killed process's holds at once instead of after the
// expiry). The holds of a process that renews are never touched: the bug this replaces released
// every other boot's holds at start, including those of processes still serving on the same file.
//
// Released, not settled: a reservation row and its usage record are written in one transaction
// (the claim rule), so an open reservation never has a recorded usage to settle from.
import { readFileSync, readlinkSync } from 'node:fs';
import type { Awaitable } from './store-api.js';

export interface LeaseOptions {
  /** how often a process renews its lease and sweeps */
  renewMs: number;
  /** how far ahead a renewal sets the expiry; past it, the owner's holds may be released */
  expireMs: number;
}

export const DEFAULT_LEASE: LeaseOptions = { renewMs: 2000, expireMs: 10_000 };

/** A row of `leases`: `expires_at` in milliseconds since the epoch (the store's clock). */
export interface LeaseRow {
  owner: string;
  machine: string | null;
  pid: number | null;
  expires_at: number;
}

/** This kernel boot and PID namespace (Linux), or null: where a lease's pid means this process table. */
function machineId(): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const ns = readlinkSync('/proc/self/ns/pid');
    return `${boot}/${ns}`;
  } catch {
    return null;
  }
}

export const MACHINE: string | null = machineId();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, another user's
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a lease row says its owner is alive at `now` (ms, the store's clock). */
export function leaseLive(row: LeaseRow, now: number): boolean {
  if (row.expires_at <= now) return false;
  if (MACHINE !== null && row.machine === MACHINE && row.pid !== null && row.pid !== process.pid && !pidAlive(row.pid)) return false;
  return true;
}

/**
 * The owners among `owners` (those with open reservations) that are not alive, never `me`; `gone`
 * are those judged dead by their pid (their lease has not expired yet).
 */
export function deadOwners(owners: readonly string[], leases: readonly LeaseRow[], now: number, me: string): { dead: string[]; gone: string[] } {
  const byOwner = new Map(leases.map((l) => [l.owner, l]));
  const dead: string[] = [];
  const gone: string[] = [];
  for (const owner of owners) {
    if (owner === me) continue;
    const lease = byOwner.get(owner);
    if (lease !== undefined && leaseLive(lease, now)) continue;
    dead.push(owner);
    if (lease !== undefined && lease.expires_at > now) gone.push(owner);
  }
  return { dead, gone };
}

/** What a store offers the keeper. */
export interface LeaseStore {
  /** writes this process's lease; false when it had lapsed or was gone (its holds may have been swept) */
  renewLease(expireMs: number): Awaitable<boolean>;
  /** removes this process's lease (clean shutdown: what it still holds is swept at once by the others) */
  endLease(): Awaitable<void>;
  /** releases the holds of owners that are not alive; returns how many */
  releaseStale(): Awaitable<number>;
}

export interface LeaseLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Renews this process's lease and sweeps, every `renewMs`, until `stop`. */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(
    private readonly store: LeaseStore,
    private readonly opts: LeaseOptions,
    private readonly log: LeaseLog,
  ) {}

  /** Takes the lease, then sweeps once (the start-up sweep); returns how many holds it released. */
  async start(): Promise<number> {
    await this.store.renewLease(this.opts.expireMs);
    const released = await this.store.releaseStale();
    this.timer = setInterval(() => {
      if (this.ticking === null) this.ticking = this.tick().finally(() => (this.ticking = null));
    }, this.opts.renewMs);
    this.timer.unref();
    return released;
  }

  private async tick(): Promise<void> {
    try {
      if (!(await this.store.renewLease(this.opts.expireMs))) {
        this.log.error({ expireMs: this.opts.expireMs }, 'lease lapsed: this process was not heard from for longer than the lease; another process may have released its holds');
      }
      const released = await this.store.releaseStale();
      if (released > 0) this.log.warn({ released }, 'released reservations left by a previous process');
    } catch (err) {
      this.log.warn({ err: String(err) }, 'lease renewal or sweep failed; retried at the next interval');
    }
  }

  /**
   * Stops renewing. The lease row stays until the store's `close` ends it, after its last settle:
   * holds a shutdown could not settle are then swept by the other processes at once.
   */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }
}
