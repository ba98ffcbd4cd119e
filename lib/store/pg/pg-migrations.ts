// Applies the PostgreSQL schema (pg-schema.ts) at start under an advisory lock, so replicas starting
// together migrate once; `gateway_migrations` records what ran. Then (re)installs the ledger's batch
// function (pg-batch-function.ts).
import type { PoolClient } from 'pg';
import { BATCH_FUNCTION } from './pg-batch-function.js';
import { PG_MIGRATIONS } from './pg-schema.js';

export { PG_MIGRATIONS };

/** pg_advisory_lock key of the migrations ('gwmg' as an integer) */
const MIGRATION_LOCK = 0x67776d67;

/** Applies the migrations not applied yet, each in a transaction, and the batch function, under the advisory lock. */
export async function migrate(client: PoolClient): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS gateway_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM gateway_migrations');
    for (let i = rows[0]?.v ?? 0; i < PG_MIGRATIONS.length; i++) {
      await client.query('BEGIN');
      try {
        await client.query(PG_MIGRATIONS[i]!);
        await client.query('INSERT INTO gateway_migrations (version) VALUES ($1)', [i + 1]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
    // the batch function is code, not data: replaced at every start, so a new version takes effect
    // with the first replica that runs it (its arguments and answer stay compatible)
    await client.query(BATCH_FUNCTION);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
