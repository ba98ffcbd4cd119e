// What the gateway sees of a store, whichever database is behind it: SQLite (store.ts, the embedded
// default) or PostgreSQL (pg/pg-store.ts, for many replicas). Calls that a networked database
// answers later are `Awaitable`: SQLite answers them at once (so its own callers and tests stay
// synchronous), PostgreSQL with a promise; code written against this interface awaits them.
import type { Config } from '../config.js';
import type { AdminStore } from './admin-store.js';
import type { LeaseStore } from './lease.js';
import type { Ledger } from './ledger-api.js';
import type { SettleBacklog, Unsettled } from './settle-backlog.js';
import type { KeyRecord } from './types.js';

export type Awaitable<T> = T | Promise<T>;

/** The ledger as the serving gateway uses it: the interface, its settle backlog, its readiness. */
export interface ServingLedger extends Ledger {
  readonly backlog: SettleBacklog;
  /** whether the ledger takes writes now (no settle waiting for the store) */
  writable(): boolean;
}

/** What a serving gateway reports as it starts a store's background work. */
export interface StoreLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface GatewayStore extends LeaseStore {
  readonly kind: 'sqlite' | 'postgres';
  /** this process's owner id: written into each reservation it takes (lease.ts) */
  readonly bootId: string;
  readonly ledger: ServingLedger;
  /** what the admin API and the CLI read and change (admin-store.ts) */
  readonly admin: AdminStore;
  /** the key record for a presented credential, or null; synchronous: answered from a per-process cache */
  findKey(presented: string): KeyRecord | null;
  /** drop cached keys now: another replica announced a key change (lib/limits/bus.ts, over Redis) */
  forgetKeys?(): void;
  /** organizations, projects, environments and keys from the config (start, SIGHUP) */
  seed(config: Config): Awaitable<void>;
  /** organizations, projects and environments only (the credits CLI) */
  seedOrgs(config: Config): Awaitable<void>;
  /** resolves when the store answers a trivial query now, rejects otherwise (what /readyz can ask) */
  ping(): Awaitable<void>;
  /** background work of a serving gateway: key-change watch, WAL checkpoints */
  startServing(log: StoreLog): Awaitable<void>;
  /** commits what is queued, retries refused settles for a bounded time, closes; idempotent */
  close(): Awaitable<void>;
  /** settles the store refused and shutdown could not commit */
  unsettled(): Unsettled[];
}
