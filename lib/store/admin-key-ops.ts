// Keys as admin operations (admin-sql.ts explains the generator form). A key the admin API makes has
// `source = 'admin'`: the config's reconcile (seed-keys.ts) never changes or disables it, and the
// admin API in turn leaves the config's keys to the config (409). Revoking disables the row and
// keeps it, so its usage rows still name a known key; the keys table's trigger bumps key_epoch, which
// every process sharing the store watches (store.ts, pg/pg-keys.ts).
import { errors } from '../errors/index.js';
import { audited, first, rows, sql, type Op, type SqlValue } from './admin-sql.js';
import type { AdminKeyRow, AuditEntry, KeyChanges, NewKey, Source } from './admin-store.js';

interface KeyColumns {
  id: string;
  org: string;
  project: string | null;
  environment: string | null;
  name: string | null;
  scopes: string;
  models: string;
  spend_cap: number | null;
  rpm: number | null;
  tpm: number | null;
  spent: number;
  reserved: number;
  source: Source;
  revoked: number;
  created_at: number | null;
  revoked_at: number | null;
  hint: string | null;
}

const KEY = `SELECT id, org, project, environment, name, scopes, models, spend_cap, rpm, tpm, spent, reserved, source,
  CASE WHEN disabled THEN 1 ELSE 0 END AS revoked, created_at, revoked_at, hint FROM keys`;

const nullable = (v: number | null): number | null => (v === null ? null : Number(v));

function keyOf(r: KeyColumns): AdminKeyRow {
  return {
    id: r.id,
    org: r.org,
    project: r.project,
    environment: r.environment,
    name: r.name,
    scopes: JSON.parse(r.scopes) as string[],
    models: JSON.parse(r.models) as string[],
    spendCap: nullable(r.spend_cap),
    rpm: nullable(r.rpm),
    tpm: nullable(r.tpm),
    spent: Number(r.spent),
    reserved: Number(r.reserved),
    source: r.source,
    revoked: Number(r.revoked) === 1,
    createdAt: nullable(r.created_at),
    revokedAt: nullable(r.revoked_at),
    hint: r.hint,
  };
}

export function* listKeys(filter: { org?: string; project?: string }): Op<AdminKeyRow[]> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  for (const column of ['org', 'project'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  const text = `${KEY}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY org, id`;
  return (yield* rows<KeyColumns>(sql(text, ...params))).map(keyOf);
}

export function* getKey(id: string): Op<AdminKeyRow | null> {
  const row = yield* first<KeyColumns>(sql(`${KEY} WHERE id = ?`, id));
  return row === null ? null : keyOf(row);
}

function* mustGetKey(id: string): Op<AdminKeyRow> {
  const key = yield* getKey(id);
  if (key === null) throw errors.adminNotFound('key', id);
  return key;
}

/** The org, project and environment a key names exist (400 naming the field otherwise). */
function* checkPlace(key: NewKey): Op<void> {
  if ((yield* first(sql('SELECT id FROM orgs WHERE id = ?', key.org))) === null) throw errors.adminFieldInvalid('org', `no organization "${key.org}"`);
  if (key.project !== null && (yield* first(sql('SELECT id FROM projects WHERE org = ? AND id = ?', key.org, key.project))) === null) {
    throw errors.adminFieldInvalid('project', `no project "${key.project}" in organization "${key.org}"`);
  }
  if (key.environment !== null) {
    const found = yield* first(sql('SELECT id FROM environments WHERE org = ? AND project = ? AND id = ?', key.org, key.project, key.environment));
    if (found === null) throw errors.adminFieldInvalid('environment', `no environment "${key.environment}" in project "${key.org}/${key.project}"`);
  }
}

export function* createKey(key: NewKey, audit: AuditEntry): Op<AdminKeyRow> {
  yield* checkPlace(key);
  yield sql(
    `INSERT INTO keys (id, hash, org, project, environment, scopes, models, spend_cap, rpm, tpm, source, disabled, name, hint, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'admin', FALSE, ?, ?, ?)`,
    key.id,
    key.hash,
    key.org,
    key.project,
    key.environment,
    JSON.stringify(key.scopes),
    JSON.stringify(key.models),
    key.spendCap,
    key.rpm,
    key.tpm,
    key.name,
    key.hint,
    Date.now(),
  );
  yield* audited(audit);
  return yield* mustGetKey(key.id);
}

/** A key the admin API may change: its own, not revoked. */
function* changeable(id: string): Op<AdminKeyRow> {
  const key = yield* mustGetKey(id);
  if (key.source !== 'admin') throw errors.adminOwnedByConfig('key', id);
  return key;
}

export function* updateKey(id: string, change: KeyChanges, audit: AuditEntry): Op<AdminKeyRow> {
  const key = yield* changeable(id);
  if (key.revoked) throw errors.adminKeyRevoked(id);
  const sets: string[] = [];
  const params: SqlValue[] = [];
  const set = (column: string, value: SqlValue): void => void (sets.push(`${column} = ?`), params.push(value));
  if (change.name !== undefined) set('name', change.name);
  if (change.scopes !== undefined) set('scopes', JSON.stringify(change.scopes));
  if (change.models !== undefined) set('models', JSON.stringify(change.models));
  if (change.spendCap !== undefined) set('spend_cap', change.spendCap);
  if (change.rateLimit !== undefined) {
    set('rpm', change.rateLimit?.rpm ?? null);
    set('tpm', change.rateLimit?.tpm ?? null);
  }
  if (sets.length > 0) yield sql(`UPDATE keys SET ${sets.join(', ')} WHERE id = ?`, ...params, id);
  yield* audited(audit);
  return yield* mustGetKey(id);
}

export function* revokeKey(id: string, audit: AuditEntry): Op<AdminKeyRow> {
  const key = yield* changeable(id);
  if (key.revoked) return key;
  yield sql('UPDATE keys SET disabled = TRUE, revoked_at = ? WHERE id = ?', Date.now(), id);
  yield* audited(audit);
  return yield* mustGetKey(id);
}
