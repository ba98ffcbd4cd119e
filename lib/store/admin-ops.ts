// The admin store (admin-store.ts) over a runner that executes operations on one database: the
// operations are the same generators on both stores (admin-org-ops.ts, admin-key-ops.ts,
// admin-usage-ops.ts); the runner decides how a transaction is held (admin-sqlite.ts, pg/pg-admin.ts).
// After a key change the runner's `keysChanged` makes this process serve it at once; the other
// processes see it through key_epoch (SQLite) or NOTIFY (PostgreSQL), and Redis when configured.
import * as keys from './admin-key-ops.js';
import * as orgs from './admin-org-ops.js';
import type { Op, SqlKind } from './admin-sql.js';
import type { AdminStore, AuditEntry, KeyChanges, NewKey, UsageFilter, UsageGroup } from './admin-store.js';
import { auditLog, recentRequests, requestsAfter, usageSums } from './admin-usage-ops.js';

export interface AdminRunner {
  readonly kind: SqlKind;
  /** runs an operation that only reads */
  read<T>(op: Op<T>): T | Promise<T>;
  /** runs an operation in one write transaction: all of it, or nothing when it throws */
  write<T>(op: Op<T>): T | Promise<T>;
  /** the keys changed: this process's key lookups must see it now */
  keysChanged(): void | Promise<void>;
}

export class AdminOps implements AdminStore {
  constructor(private readonly run: AdminRunner) {}

  private async keyWrite<T>(op: Op<T>): Promise<T> {
    const result = await this.run.write(op);
    await this.run.keysChanged();
    return result;
  }

  listOrgs = async () => this.run.read(orgs.listOrgs());
  getOrg = async (id: string) => this.run.read(orgs.getOrg(id));
  createOrg = async (org: { id: string; credits: number; spendCap: number | null }, audit: AuditEntry) => this.run.write(orgs.createOrg(org, audit));
  updateOrg = async (id: string, spendCap: number | null, audit: AuditEntry) => this.run.write(orgs.updateOrg(id, spendCap, audit));
  addCredits = async (org: string, units: number, reason: string, audit: AuditEntry) => this.run.write(orgs.addCredits(org, units, reason, audit));
  listProjects = async (org: string) => this.run.read(orgs.listProjects(org));
  getProject = async (org: string, id: string) => this.run.read(orgs.getProject(org, id));
  createProject = async (org: string, project: { id: string; spendCap: number | null }, audit: AuditEntry) => this.run.write(orgs.createProject(org, project, audit));
  listEnvironments = async (org: string, project?: string) => this.run.read(orgs.listEnvironments(org, project));
  createEnvironment = async (org: string, project: string, env: { id: string; spendCap: number | null }, audit: AuditEntry) =>
    this.run.write(orgs.createEnvironment(org, project, env, audit));
  listKeys = async (filter: { org?: string; project?: string }) => this.run.read(keys.listKeys(filter));
  getKey = async (id: string) => this.run.read(keys.getKey(id));
  createKey = async (key: NewKey, audit: AuditEntry) => this.keyWrite(keys.createKey(key, audit));
  updateKey = async (id: string, changes: KeyChanges, audit: AuditEntry) => this.keyWrite(keys.updateKey(id, changes, audit));
  revokeKey = async (id: string, audit: AuditEntry) => this.keyWrite(keys.revokeKey(id, audit));
  usage = async (filter: UsageFilter, group: UsageGroup | null) => this.run.read(usageSums(filter, group, this.run.kind));
  requests = async (filter: UsageFilter, limit: number, before: string | null) => this.run.read(recentRequests(filter, limit, before, this.run.kind));
  requestsAfter = async (filter: UsageFilter, limit: number, after: string) => this.run.read(requestsAfter(filter, limit, after, this.run.kind));
  audit = async (limit: number) => this.run.read(auditLog(limit));
}
