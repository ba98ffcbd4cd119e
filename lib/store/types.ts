// The store's records: keys, reservations and usage. The interface is store-api.ts; SQLite
// (store.ts) and PostgreSQL (pg/pg-store.ts) implement it.
import type { Scope } from '../config.js';

/**
 * Money is kept as integers of a fixed sub-cent unit: 1 unit = 1e-9 USD (a nano-dollar), so a
 * balance up to about 9 million USD stays an exact JavaScript integer.
 */
export const UNITS_PER_USD = 1_000_000_000;

export interface KeyRecord {
  /** public identifier, safe to log (never the key itself) */
  id: string;
  org: string;
  project: string | null;
  environment: string | null;
  /** endpoint allowlist; empty = unrestricted */
  scopes: Scope[];
  /** model allowlist of catalog ids or `*` globs; empty = every model */
  models: string[];
  /** spend cap in units, or null */
  spendCap: number | null;
  rateLimit: { rpm: number | null; tpm: number | null };
}

export interface Reservation {
  id: string;
  requestId: string;
  keyId: string;
  /** reserved amount in units */
  amount: number;
  /**
   * The levels the hold was taken at, as its row remembers them: the organization, and the key's
   * project and environment (null: none). The SQLite ledger sets them on the holds it takes, so that
   * ending one deletes its row without reading it back; a reservation without them is ended at the
   * levels its row names.
   */
  org?: string;
  project?: string | null;
  environment?: string | null;
  /**
   * Where the SQLite ledger put the hold's row (its slot, reservation-slots.ts): its end deletes the
   * row there if it still has this id. Without it, the row is found by its id.
   */
  slot?: number;
}

/** The levels a spend cap can apply at. */
export type CapLevel = 'key' | 'environment' | 'project' | 'organization';

/** What a request used, as a usage row records it and the admin API's sums add it up. */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  webSearches: number;
}

export interface UsageRecord extends TokenCounts {
  requestId: string;
  keyId: string;
  org: string;
  project: string | null;
  environment: string | null;
  endpoint: string;
  modelRequested: string | null;
  modelServed: string | null;
  provider: string | null;
  audioSeconds: number | null;
  /** settled cost in units */
  cost: number;
  callName: string | null;
  endUserId: string | null;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  /** gateway-auto's decision as JSON (lib/chunks.ts RoutingDecision); null or absent for a direct call */
  routing?: string | null;
}
