// What the admin API (lib/admin/) reads and changes in a store, on both stores: organizations,
// projects, environments, keys, credits, usage sums, recent requests and the audit log. Money in
// units (types.ts); every change is one transaction that also writes its audit row, so a change is
// never recorded without happening or the other way round. The operations are written once
// (admin-ops.ts); each store runs them (admin-sqlite.ts, pg/pg-admin.ts).
import type { StoredUsage } from './ledger-api.js';
import type { Awaitable } from './store-api.js';
import type { TokenCounts } from './types.js';

export type Source = 'config' | 'admin';

interface Counters {
  spendCap: number | null;
  spent: number;
  reserved: number;
}

export interface OrgRow extends Counters {
  id: string;
  balance: number;
  source: Source;
}

export interface ProjectRow extends Counters {
  org: string;
  id: string;
  source: Source;
}

export interface EnvironmentRow extends Counters {
  org: string;
  project: string;
  id: string;
  source: Source;
}

/** What a key is, as the admin API makes it and reads it back (caps in units). */
interface KeyFields {
  id: string;
  org: string;
  project: string | null;
  environment: string | null;
  name: string | null;
  scopes: string[];
  models: string[];
  spendCap: number | null;
  rpm: number | null;
  tpm: number | null;
}

export interface AdminKeyRow extends KeyFields, Counters {
  source: Source;
  revoked: boolean;
  createdAt: number | null;
  revokedAt: number | null;
  /** the secret's last characters (never the secret) */
  hint: string | null;
}

/** A key the admin API creates: its secret only as a hash. */
export interface NewKey extends KeyFields {
  hash: string;
  hint: string;
}

/** What a PATCH may change on a key: absent fields stay. */
export interface KeyChanges {
  name?: string | null;
  scopes?: string[];
  models?: string[];
  spendCap?: number | null;
  rateLimit?: { rpm: number | null; tpm: number | null } | null;
}

/** Who changed what, written with the change. `detail` never holds a secret. */
export interface AuditEntry {
  actor: string;
  action: string;
  target: string;
  detail: Record<string, unknown>;
}

export interface AuditRow {
  seq: number;
  at: number;
  actor: string;
  action: string;
  target: string;
  detail: string;
}

export interface UsageFilter {
  /** created_at bounds in ms: from inclusive, to exclusive */
  from?: number;
  to?: number;
  org?: string;
  project?: string;
  key?: string;
  /** matches the served or the requested model */
  model?: string;
}

export type UsageGroup = 'day' | 'model' | 'key' | 'project' | 'end_user';

export interface UsageSums extends TokenCounts {
  group: string | null;
  requests: number;
  /** units */
  cost: number;
}

/** A usage row with its place in the requests order (admin-usage-ops.ts): the cursor `before` takes. */
export interface RequestRow extends StoredUsage {
  place: string;
}

export interface AdminStore {
  listOrgs(): Awaitable<OrgRow[]>;
  getOrg(id: string): Awaitable<OrgRow | null>;
  /** 409 when the id exists */
  createOrg(org: { id: string; credits: number; spendCap: number | null }, audit: AuditEntry): Awaitable<OrgRow>;
  /** 404 unknown, 409 when the config owns it */
  updateOrg(id: string, spendCap: number | null, audit: AuditEntry): Awaitable<OrgRow>;
  /** adds (or, negative, removes) credits; 404 unknown, 400 when the balance would go below zero; returns the new balance */
  addCredits(org: string, units: number, reason: string, audit: AuditEntry): Awaitable<number>;
  listProjects(org: string): Awaitable<ProjectRow[]>;
  getProject(org: string, id: string): Awaitable<ProjectRow | null>;
  createProject(org: string, project: { id: string; spendCap: number | null }, audit: AuditEntry): Awaitable<ProjectRow>;
  /** one project's environments, or every environment of the org */
  listEnvironments(org: string, project?: string): Awaitable<EnvironmentRow[]>;
  createEnvironment(org: string, project: string, env: { id: string; spendCap: number | null }, audit: AuditEntry): Awaitable<EnvironmentRow>;
  listKeys(filter: { org?: string; project?: string }): Awaitable<AdminKeyRow[]>;
  getKey(id: string): Awaitable<AdminKeyRow | null>;
  /** the new key serves on this process when this resolves (and on the others within a second) */
  createKey(key: NewKey, audit: AuditEntry): Awaitable<AdminKeyRow>;
  /** 404 unknown, 409 config-owned or revoked */
  updateKey(id: string, changes: KeyChanges, audit: AuditEntry): Awaitable<AdminKeyRow>;
  /** refused on this process when this resolves; 404 unknown, 409 config-owned; revoking twice answers the revoked key */
  revokeKey(id: string, audit: AuditEntry): Awaitable<AdminKeyRow>;
  usage(filter: UsageFilter, group: UsageGroup | null): Awaitable<UsageSums[]>;
  /** newest first, below the place `before` when given (400 when it is not a place this store wrote) */
  requests(filter: UsageFilter, limit: number, before: string | null): Awaitable<RequestRow[]>;
  /** oldest first, after `after` (`0`, a place or a request id; 400 otherwise), with the place it resolved to */
  requestsAfter(filter: UsageFilter, limit: number, after: string): Awaitable<{ rows: RequestRow[]; from: string }>;
  audit(limit: number): Awaitable<AuditRow[]>;
}
