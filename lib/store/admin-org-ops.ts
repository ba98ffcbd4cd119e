// Organizations, projects, environments and credits as admin operations (admin-sql.ts explains the
// generator form). Each change checks what it needs inside its own transaction and writes its audit
// row there: a refused change leaves nothing behind.
import { errors } from '../errors/index.js';
import { unitsToUsd } from '../pricing.js';
import { audited, changes, first, rows, sql, type Op } from './admin-sql.js';
import type { AuditEntry, EnvironmentRow, OrgRow, ProjectRow, Source } from './admin-store.js';

interface CounterColumns {
  spend_cap: number | null;
  spent: number;
  reserved: number;
  source: Source;
}
type OrgColumns = CounterColumns & { id: string; balance: number };
type ProjectColumns = CounterColumns & { org: string; id: string };
type EnvColumns = ProjectColumns & { project: string };

const ORG = 'SELECT id, balance, spend_cap, spent, reserved, source FROM orgs';
const PROJECT = 'SELECT org, id, spend_cap, spent, reserved, source FROM projects';
const ENV = 'SELECT org, project, id, spend_cap, spent, reserved, source FROM environments';

const counters = (r: CounterColumns): { spendCap: number | null; spent: number; reserved: number; source: Source } => ({
  spendCap: r.spend_cap === null ? null : Number(r.spend_cap),
  spent: Number(r.spent),
  reserved: Number(r.reserved),
  source: r.source,
});
const orgOf = (r: OrgColumns): OrgRow => ({ id: r.id, balance: Number(r.balance), ...counters(r) });
const projectOf = (r: ProjectColumns): ProjectRow => ({ org: r.org, id: r.id, ...counters(r) });
const envOf = (r: EnvColumns): EnvironmentRow => ({ org: r.org, project: r.project, id: r.id, ...counters(r) });

export function* listOrgs(): Op<OrgRow[]> {
  return (yield* rows<OrgColumns>(sql(`${ORG} ORDER BY id`))).map(orgOf);
}

export function* getOrg(id: string): Op<OrgRow | null> {
  const row = yield* first<OrgColumns>(sql(`${ORG} WHERE id = ?`, id));
  return row === null ? null : orgOf(row);
}

function* mustGetOrg(id: string): Op<OrgRow> {
  const org = yield* getOrg(id);
  if (org === null) throw errors.adminNotFound('organization', id);
  return org;
}

export function* createOrg(org: { id: string; credits: number; spendCap: number | null }, audit: AuditEntry): Op<OrgRow> {
  const created = yield* changes(sql("INSERT INTO orgs (id, balance, spend_cap, source) VALUES (?, ?, ?, 'admin') ON CONFLICT (id) DO NOTHING", org.id, org.credits, org.spendCap));
  if (created === 0) throw errors.adminExists('organization', org.id);
  if (org.credits > 0) yield sql('INSERT INTO credit_events (org, amount, reason, created_at) VALUES (?, ?, ?, ?)', org.id, org.credits, 'initial credits (admin API)', Date.now());
  yield* audited(audit);
  return yield* mustGetOrg(org.id);
}

export function* updateOrg(id: string, spendCap: number | null, audit: AuditEntry): Op<OrgRow> {
  const org = yield* mustGetOrg(id);
  // the config's seed sets its organizations' caps again at every start and reload
  if (org.source === 'config') throw errors.adminOwnedByConfig('organization', id);
  yield sql('UPDATE orgs SET spend_cap = ? WHERE id = ?', spendCap, id);
  yield* audited(audit);
  return yield* mustGetOrg(id);
}

/** One conditional UPDATE: the balance never goes below zero, whatever runs beside it. */
export function* addCredits(org: string, units: number, reason: string, audit: AuditEntry): Op<number> {
  const done = yield* changes(sql('UPDATE orgs SET balance = balance + ? WHERE id = ? AND balance + ? >= 0', units, org, units));
  if (done === 0) {
    const now = yield* mustGetOrg(org);
    throw errors.adminCreditsBelowZero(org, unitsToUsd(units), unitsToUsd(now.balance));
  }
  yield sql('INSERT INTO credit_events (org, amount, reason, created_at) VALUES (?, ?, ?, ?)', org, units, reason, Date.now());
  yield* audited(audit);
  return (yield* mustGetOrg(org)).balance;
}

export function* listProjects(org: string): Op<ProjectRow[]> {
  return (yield* rows<ProjectColumns>(sql(`${PROJECT} WHERE org = ? ORDER BY id`, org))).map(projectOf);
}

export function* getProject(org: string, id: string): Op<ProjectRow | null> {
  const row = yield* first<ProjectColumns>(sql(`${PROJECT} WHERE org = ? AND id = ?`, org, id));
  return row === null ? null : projectOf(row);
}

export function* createProject(org: string, project: { id: string; spendCap: number | null }, audit: AuditEntry): Op<ProjectRow> {
  yield* mustGetOrg(org);
  const created = yield* changes(sql("INSERT INTO projects (org, id, spend_cap, source) VALUES (?, ?, ?, 'admin') ON CONFLICT (org, id) DO NOTHING", org, project.id, project.spendCap));
  if (created === 0) throw errors.adminExists('project', project.id);
  yield* audited(audit);
  return (yield* getProject(org, project.id))!;
}

export function* listEnvironments(org: string, project?: string): Op<EnvironmentRow[]> {
  const query = project === undefined ? sql(`${ENV} WHERE org = ? ORDER BY project, id`, org) : sql(`${ENV} WHERE org = ? AND project = ? ORDER BY id`, org, project);
  return (yield* rows<EnvColumns>(query)).map(envOf);
}

export function* createEnvironment(org: string, project: string, env: { id: string; spendCap: number | null }, audit: AuditEntry): Op<EnvironmentRow> {
  yield* mustGetOrg(org);
  if ((yield* getProject(org, project)) === null) throw errors.adminNotFound('project', `${org}/${project}`);
  const created = yield* changes(
    sql("INSERT INTO environments (org, project, id, spend_cap, source) VALUES (?, ?, ?, ?, 'admin') ON CONFLICT (org, project, id) DO NOTHING", org, project, env.id, env.spendCap),
  );
  if (created === 0) throw errors.adminExists('environment', env.id);
  yield* audited(audit);
  const row = yield* first<EnvColumns>(sql(`${ENV} WHERE org = ? AND project = ? AND id = ?`, org, project, env.id));
  return envOf(row!);
}
