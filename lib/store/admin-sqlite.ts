// Runs the admin operations (admin-ops.ts) on the SQLite store: synchronously, a change inside one
// IMMEDIATE transaction (another process writing the same file waits for it, busy_timeout), so no
// other work of this process can interleave with it either.
import type Database from 'better-sqlite3';
import type { AdminRunner } from './admin-ops.js';
import type { Answer, Op } from './admin-sql.js';

export class SqliteAdminRunner implements AdminRunner {
  readonly kind = 'sqlite';
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    /** clears the store's key cache */
    readonly keysChanged: () => void,
  ) {}

  private answer(text: string, params: readonly unknown[]): Answer {
    let stmt = this.statements.get(text);
    if (stmt === undefined) this.statements.set(text, (stmt = this.db.prepare(text)));
    if (stmt.reader) return { rows: stmt.all(...params) as Record<string, unknown>[], changes: 0 };
    return { rows: [], changes: stmt.run(...params).changes };
  }

  read<T>(op: Op<T>): T {
    let step = op.next();
    while (!step.done) step = op.next(this.answer(step.value.sql, step.value.params));
    return step.value;
  }

  write<T>(op: Op<T>): T {
    return this.db.transaction(() => this.read(op)).immediate();
  }
}
