// Reconciles the keys table with the keys a config lists. The id is what a key is (its spend,
// caps and usage history belong to the id); the secret is only how a caller proves it holds it:
//   - a new secret under a listed id rotates that id: the row keeps its id and counters and
//     takes the new hash, so the old secret stops matching at once;
//   - a secret already held by another id (renamed in the config, or two ids swapping secrets)
//     is taken from that row first: the row is disabled and its hash replaced by a value no
//     SHA-256 hex digest can equal, since `hash` is UNIQUE and stays so;
//   - a config key no longer listed is disabled (kept, so its usage rows still name a known id).
// Rows are never deleted, and usage rows are not touched. Runs inside the caller's transaction.
// Only rows the config made are changed: a key made another way (source other than 'config', e.g.
// an admin API) with the same id or secret is a configuration error, not something to take over.
import type Database from 'better-sqlite3';
import { errors } from '../errors/index.js';

/** A row of the `keys` table as the store reads and the seed writes it. */
export interface KeyRow {
  id: string;
  hash: string;
  org: string;
  project: string | null;
  environment: string | null;
  scopes: string;
  models: string;
  spend_cap: number | null;
  rpm: number | null;
  tpm: number | null;
  /** the secret's last characters, for the admin API's listing (key-rows.ts); absent: left as it is */
  hint?: string | null;
}

/** What a row's hash becomes when its secret moves to another id: unique (ids are) and never a hex digest. */
function retiredHash(id: string): string {
  return `retired:${id}`;
}

export function reconcileKeys(db: Database.Database, rows: readonly KeyRow[]): void {
  const holderOf = db.prepare<[string, string], { id: string; source: string }>('SELECT id, source FROM keys WHERE hash = ? AND id <> ?');
  const sourceOf = db.prepare<[string], { source: string }>('SELECT source FROM keys WHERE id = ?');
  const retire = db.prepare<[string, string]>('UPDATE keys SET hash = ?, disabled = 1 WHERE id = ?');
  const upsert = db.prepare(`INSERT INTO keys (id, hash, org, project, environment, scopes, models, spend_cap, rpm, tpm, source, disabled)
    VALUES (@id, @hash, @org, @project, @environment, @scopes, @models, @spend_cap, @rpm, @tpm, 'config', 0)
    ON CONFLICT(id) DO UPDATE SET hash = excluded.hash, org = excluded.org, project = excluded.project, environment = excluded.environment,
      scopes = excluded.scopes, models = excluded.models, spend_cap = excluded.spend_cap, rpm = excluded.rpm, tpm = excluded.tpm,
      disabled = 0`);
  const setHint = db.prepare<[string | null, string]>('UPDATE keys SET hint = ? WHERE id = ?');
  rows.forEach((row, i) => {
    const own = sourceOf.get(row.id);
    if (own !== undefined && own.source !== 'config') throw errors.configKeyIdTaken(i, row.id, own.source);
    const holder = holderOf.get(row.hash, row.id);
    if (holder !== undefined && holder.source !== 'config') throw errors.configKeySecretTaken(i, holder.id, holder.source);
    if (holder !== undefined) retire.run(retiredHash(holder.id), holder.id);
    const { hint, ...columns } = row;
    upsert.run(columns);
    if (hint !== undefined) setHint.run(hint, row.id);
  });
  const ids = rows.map((r) => r.id);
  const listed = ids.length > 0 ? ` AND id NOT IN (${ids.map(() => '?').join(',')})` : '';
  db.prepare(`UPDATE keys SET disabled = 1 WHERE source = 'config'${listed}`).run(...ids);
}
