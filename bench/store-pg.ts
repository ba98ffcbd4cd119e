// Benchmark: reserve + settle per second on the PostgreSQL ledger (no HTTP), on a server started for
// the run (test/helpers/postgres.ts; synchronous_commit off, as SQLite's synchronous=NORMAL: a
// process crash loses nothing, an OS crash the last fraction of a second), in the same line format
// as bench/store.ts: one call at a time (two round trips per request), batches of 16 (what 16
// concurrent requests queue in one event-loop turn: one round trip per batch), and 4 processes
// × batches of 16 on one organization (replicas contending for its row).
//
// Then the locking choice (see lib/store/pg/pg-ledger.ts): 16 concurrent holders on one
// organization, each hold + release its own transaction, decided (a) by gateway_batch's conditional
// UPDATE … RETURNING per level under ordered row locks, (b) by a SERIALIZABLE transaction (read the
// levels, decide in JS, update, commit) retried on serialization failures.
// Run: node dist/bench/store-pg.js [iterations]   (prints "skipped: ..." without PostgreSQL)
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { finalizeConfig } from '../lib/config.js';
import { openStore } from '../lib/store/open-store.js';
import { checkHold, levelsOf, type LevelsRow } from '../lib/store/ledger-batch.js';
import type { GatewayStore } from '../lib/store/store-api.js';
import type { KeyRecord, UsageRecord } from '../lib/store/types.js';
import { postgresBin, startPostgres } from '../test/helpers/postgres.js';

const iterations = Number(process.argv[2] ?? 20_000);
const BATCH = 16;

const config = (store: string): ReturnType<typeof finalizeConfig> =>
  finalizeConfig(
    {
      store,
      providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
      models: [{ id: 'sim/model', deployments: [{ provider: 'sim', model: 'model' }], pricing: { input: 3, output: 15 } }],
      orgs: [{ id: 'bench', credits: 1_000_000, spendCap: 900_000, projects: [{ id: 'p', spendCap: 800_000, environments: [{ id: 'e', spendCap: 700_000 }] }] }],
      keys: [{ id: 'key_bench', key: 'bench-key-0123456789', org: 'bench', project: 'p', environment: 'e', spendCap: 600_000 }],
    },
    {},
  );

function record(requestId: string, cost: number): UsageRecord {
  return {
    requestId, keyId: 'key_bench', org: 'bench', project: 'p', environment: 'e', endpoint: 'messages', modelRequested: 'sim/model', modelServed: 'sim/model',
    provider: 'sim', inputTokens: 1200, outputTokens: 350, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, webSearches: 0, audioSeconds: null,
    cost, callName: null, endUserId: null, status: 200, errorCode: null, latencyMs: 420,
  };
}

function report(label: string, ms: number, n: number): void {
  const perSec = Math.round((n * 1000) / ms);
  console.log(`${label.padEnd(22)} ${n} reserve+settle in ${ms.toFixed(0)} ms: ${perSec} round trips/s (${((ms * 1000) / n).toFixed(1)} µs each)`);
}

async function open(url: string): Promise<{ store: GatewayStore; key: KeyRecord }> {
  const store = await openStore({ store: url, storePool: 10 });
  await store.seed(config(url));
  return { store, key: store.findKey('bench-key-0123456789')! };
}

async function batched(url: string, n: number, tag: string): Promise<number> {
  const { store, key } = await open(url);
  const ledger = store.ledger;
  const round = async (prefix: string): Promise<void> => {
    const ids = Array.from({ length: BATCH }, (_, j) => `${prefix}-${j}`);
    const holds = await Promise.all(ids.map((requestId) => ledger.reserveSoon({ requestId, key, amount: 1_000 })));
    await Promise.all(holds.map((r) => ledger.endSoon(r, record(r.requestId, 9), true)));
  };
  for (let i = 0; i < 200 / BATCH; i++) await round(`${tag}-warm-${i}`);
  const rounds = Math.ceil(n / BATCH);
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) await round(`${tag}-req-${i}`);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  await store.close();
  return ms;
}

async function oneAtATime(url: string, n: number): Promise<number> {
  const { store, key } = await open(url);
  const ledger = store.ledger;
  const one = async (id: string): Promise<void> => {
    const r = await ledger.reserve({ requestId: id, key, amount: 1_000 });
    await ledger.settle(r, record(id, 9));
  };
  for (let i = 0; i < 200; i++) await one(`single-warm-${i}`);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await one(`single-${i}`);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  await store.close();
  return ms;
}

/** (b) one SERIALIZABLE transaction per hold and per release, retried on 40001/40P01. */
async function serializableHoldRelease(client: pg.Client, key: KeyRecord, amount: number): Promise<number> {
  let retries = 0;
  const tx = async (work: () => Promise<void>): Promise<void> => {
    for (;;) {
      try {
        await client.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
        await work();
        await client.query('COMMIT');
        return;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        const code = (err as { code?: string }).code;
        if (code !== '40001' && code !== '40P01') throw err;
        retries++;
      }
    }
  };
  const id = `res_ser_${Math.random().toString(36).slice(2)}`;
  const hold = { key: key.id, org: key.org, project: key.project, environment: key.environment, reserve: amount, cost: 0 };
  await tx(async () => {
    const { rows } = await client.query<LevelsRow>(
      `SELECT o.balance, o.reserved AS o_reserved, o.spent AS o_spent, o.spend_cap AS o_cap, k.reserved AS k_reserved, k.spent AS k_spent, k.spend_cap AS k_cap,
        p.reserved AS p_reserved, p.spent AS p_spent, p.spend_cap AS p_cap, e.reserved AS e_reserved, e.spent AS e_spent, e.spend_cap AS e_cap
       FROM orgs o LEFT JOIN keys k ON k.id = $2 LEFT JOIN projects p ON p.org = o.id AND p.id = $3
       LEFT JOIN environments e ON e.org = o.id AND e.project = $3 AND e.id = $4 WHERE o.id = $1`,
      [key.org, key.id, key.project, key.environment],
    );
    checkHold(hold, levelsOf(rows[0]));
    await client.query('UPDATE orgs SET reserved = reserved + $2 WHERE id = $1', [key.org, amount]);
    await client.query('UPDATE keys SET reserved = reserved + $2 WHERE id = $1', [key.id, amount]);
    await client.query('UPDATE projects SET reserved = reserved + $3 WHERE org = $1 AND id = $2', [key.org, key.project, amount]);
    await client.query('UPDATE environments SET reserved = reserved + $4 WHERE org = $1 AND project = $2 AND id = $3', [key.org, key.project, key.environment, amount]);
    await client.query("INSERT INTO reservations VALUES ($1, $1, $2, $3, $4, $5, $6, 'bench', 0)", [id, key.id, key.org, key.project, key.environment, amount]);
  });
  await tx(async () => {
    const { rowCount } = await client.query('DELETE FROM reservations WHERE id = $1', [id]);
    if (rowCount === 0) return;
    await client.query('UPDATE orgs SET reserved = reserved - $2 WHERE id = $1', [key.org, amount]);
    await client.query('UPDATE keys SET reserved = reserved - $2 WHERE id = $1', [key.id, amount]);
    await client.query('UPDATE projects SET reserved = reserved - $3 WHERE org = $1 AND id = $2', [key.org, key.project, amount]);
    await client.query('UPDATE environments SET reserved = reserved - $4 WHERE org = $1 AND project = $2 AND id = $3', [key.org, key.project, key.environment, amount]);
  });
  return retries;
}

/** (a) gateway_batch: one statement per hold and per release. */
async function conditionalHoldRelease(client: pg.Client, key: KeyRecord, amount: number): Promise<number> {
  const id = `res_cond_${Math.random().toString(36).slice(2)}`;
  const hold = { id, request_id: id, key_id: key.id, org: key.org, project: key.project, environment: key.environment, amount };
  await client.query('SELECT gateway_batch($1::jsonb)', [JSON.stringify({ owner: 'bench', holds: [hold] })]);
  await client.query('SELECT gateway_batch($1::jsonb)', [JSON.stringify({ owner: 'bench', ends: [{ id, cost: 0 }] })]);
  return 0;
}

async function locking(url: string, seconds: number): Promise<void> {
  const { store, key } = await open(url);
  await store.close();
  const WORKERS = 16;
  for (const [label, fn] of [
    ['conditional UPDATE per level', conditionalHoldRelease],
    ['SERIALIZABLE + retry', serializableHoldRelease],
  ] as const) {
    const clients = await Promise.all(Array.from({ length: WORKERS }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }));
    let done = 0;
    let retries = 0;
    const end = Date.now() + seconds * 1000;
    await Promise.all(clients.map(async (c) => {
      while (Date.now() < end) {
        retries += await fn(c, key, 1_000);
        done++;
      }
    }));
    await Promise.all(clients.map((c) => c.end()));
    console.log(`locking ${label}: ${Math.round(done / seconds)} hold+release/s with ${WORKERS} concurrent holders on one organization, ${retries} retries (${((100 * retries) / Math.max(1, done)).toFixed(0)} % of operations)`);
  }
}

if (process.argv[2] === '--child') {
  // one of the contending processes: batches of 16 on the shared database
  const ms = await batched(process.argv[3]!, Number(process.argv[4]), `p${process.pid}`);
  process.send?.({ ms });
  process.exit(0);
}

if (postgresBin() === null) {
  console.log('skipped: PostgreSQL is not installed');
  process.exit(0);
}
const server = await startPostgres({ settings: { fsync: 'on', full_page_writes: 'on', synchronous_commit: 'off' } });
try {
  report('postgres, one at a time', await oneAtATime(server.createDatabase(), Math.min(iterations, 2000)), Math.min(iterations, 2000));
  report(`postgres, batches of ${BATCH}`, await batched(server.createDatabase(), iterations, 'b'), Math.ceil(iterations / BATCH) * BATCH);
  const shared = server.createDatabase();
  await (await open(shared)).store.close();
  const per = Math.ceil(iterations / 4 / BATCH) * BATCH;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 4 }, () => new Promise<void>((resolve, reject) => {
      const child = fork(fileURLToPath(import.meta.url), ['--child', shared, String(per)], { stdio: 'inherit' });
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}`))));
    })),
  );
  report(`postgres, 4 procs × ${BATCH}`, Number(process.hrtime.bigint() - started) / 1e6, per * 4);
  await locking(server.createDatabase(), iterations >= 20_000 ? 5 : 2);
} finally {
  await server.stop();
}
