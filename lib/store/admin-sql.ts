// The admin operations are written once, as generators that yield SQL and receive its answer, so
// one piece of code decides each change on both stores: SQLite runs a generator synchronously inside
// one IMMEDIATE transaction (admin-sqlite.ts), PostgreSQL awaits each query inside BEGIN … COMMIT
// (pg/pg-admin.ts). The SQL is the subset both databases read alike: `?` placeholders (numbered for
// PostgreSQL by the runner), TRUE/NOT for the `disabled` flag, sums cast to BIGINT.
import type { AuditEntry } from './admin-store.js';

export type SqlValue = string | number | null;

export interface Query {
  sql: string;
  params: readonly SqlValue[];
}

export interface Answer {
  rows: Record<string, unknown>[];
  /** rows a write changed */
  changes: number;
}

/** An operation: yields queries, gets each one's answer back, returns its result. */
export type Op<T> = Generator<Query, T, Answer>;

export type SqlKind = 'sqlite' | 'postgres';

export function sql(text: string, ...params: SqlValue[]): Query {
  return { sql: text, params };
}

/** `?` → `$1, $2, …` for PostgreSQL (the admin SQL has no `?` inside literals). */
export function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** Runs one query of an operation and hands back its rows (typed by the caller's SELECT). */
export function* rows<R>(query: Query): Op<R[]> {
  const answer = yield query;
  return answer.rows as R[];
}

export function* first<R>(query: Query): Op<R | null> {
  const answer = yield query;
  return (answer.rows[0] as R | undefined) ?? null;
}

export function* changes(query: Query): Op<number> {
  const answer = yield query;
  return answer.changes;
}

/** The audit row of a change, in the change's transaction. */
export function* audited(entry: AuditEntry): Op<void> {
  yield sql('INSERT INTO audit (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)', Date.now(), entry.actor, entry.action, entry.target, JSON.stringify(entry.detail));
}
