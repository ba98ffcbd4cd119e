// Runs the admin operations (../admin-ops.ts) on PostgreSQL: each on one pooled connection, a change
// inside BEGIN … COMMIT (ROLLBACK when the operation throws: nothing half-written).
import type { Pool, PoolClient } from 'pg';
import type { AdminRunner } from '../admin-ops.js';
import { numbered, type Op } from '../admin-sql.js';

export class PgAdminRunner implements AdminRunner {
  readonly kind = 'postgres';

  constructor(
    private readonly pool: Pool,
    /** reloads this process's key map */
    readonly keysChanged: () => Promise<void>,
  ) {}

  private async drive<T>(client: PoolClient, op: Op<T>): Promise<T> {
    let step = op.next();
    while (!step.done) {
      const result = await client.query(numbered(step.value.sql), step.value.params as unknown[]);
      step = op.next({ rows: result.rows as Record<string, unknown>[], changes: result.rowCount ?? 0 });
    }
    return step.value;
  }

  async read<T>(op: Op<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await this.drive(client, op);
    } finally {
      client.release();
    }
  }

  async write<T>(op: Op<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await this.drive(client, op);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
