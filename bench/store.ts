// Benchmark: reserve + settle round trips per second on the SQLite ledger, single process, on a
// file-backed store (WAL, synchronous=NORMAL) in a temp dir and on :memory:. Each store is measured
// one call at a time (a transaction each) and batched as the gateway runs it (`reserveSoon` /
// `endSoon`: what 16 concurrent requests queue in one event-loop turn shares one transaction).
// Request ids are the gateway's own (lib/ids.ts): how they sort decides which pages of the
// usage table's key index each settle writes.
// Run: npx tsc -p . && node dist/bench/store.js [iterations]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finalizeConfig } from '../lib/config.js';
import { Store } from '../lib/store/store.js';
import { newRequestId } from '../lib/ids.js';
import type { UsageRecord } from '../lib/store/types.js';

const iterations = Number(process.argv[2] ?? 20_000);

const config = finalizeConfig(
  {
    providers: [{ id: 'sim', protocol: 'anthropic', simulated: true }],
    models: [{ id: 'sim/model', deployments: [{ provider: 'sim', model: 'model' }], pricing: { input: 3, output: 15 } }],
    orgs: [{ id: 'bench', credits: 1_000_000, spendCap: 900_000, projects: [{ id: 'p', spendCap: 800_000, environments: [{ id: 'e', spendCap: 700_000 }] }] }],
    keys: [{ id: 'key_bench', key: 'bench-key-0123456789', org: 'bench', project: 'p', environment: 'e', spendCap: 600_000 }],
  },
  {},
);

function record(requestId: string, cost: number): UsageRecord {
  return {
    requestId,
    keyId: 'key_bench',
    org: 'bench',
    project: 'p',
    environment: 'e',
    endpoint: 'messages',
    modelRequested: 'sim/model',
    modelServed: 'sim/model',
    provider: 'sim',
    inputTokens: 1200,
    outputTokens: 350,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    webSearches: 0,
    audioSeconds: null,
    cost,
    callName: null,
    endUserId: null,
    status: 200,
    errorCode: null,
    latencyMs: 420,
  };
}

const BATCH = 16;

function open(url: string): { store: Store; key: NonNullable<ReturnType<Store['findKey']>> } {
  const store = new Store(url);
  store.seed(config);
  return { store, key: store.findKey('bench-key-0123456789')! };
}

function report(label: string, ms: number, n = iterations): void {
  const perSec = Math.round((n * 1000) / ms);
  console.log(`${label.padEnd(22)} ${n} reserve+settle in ${ms.toFixed(0)} ms: ${perSec} round trips/s (${((ms * 1000) / n).toFixed(1)} µs each)`);
}

async function runBatched(label: string, url: string): Promise<void> {
  const { store, key } = open(url);
  const ledger = store.ledger;
  const round = async (): Promise<void> => {
    const ids = Array.from({ length: BATCH }, () => newRequestId());
    const holds = await Promise.all(ids.map((requestId) => ledger.reserveSoon({ requestId, key, amount: 1_000_000 })));
    await Promise.all(holds.map((r) => ledger.endSoon(r, record(r.requestId, 9_000), true)));
  };
  for (let i = 0; i < 500 / BATCH; i++) await round();
  const rounds = Math.ceil(iterations / BATCH);
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) await round();
  report(`${label}, batches of ${BATCH}`, Number(process.hrtime.bigint() - start) / 1e6, rounds * BATCH);
  store.close();
}

function run(label: string, url: string): void {
  const { store, key } = open(url);
  const ledger = store.ledger;
  // warm up the statements and the page cache
  for (let i = 0; i < 500; i++) {
    const r = ledger.reserve({ requestId: newRequestId(), key, amount: 1_000_000 });
    ledger.settle(r, record(r.requestId, 9_000));
  }
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) {
    const r = ledger.reserve({ requestId: newRequestId(), key, amount: 1_000_000 });
    ledger.settle(r, record(r.requestId, 9_000));
  }
  report(label, Number(process.hrtime.bigint() - start) / 1e6);
  store.close();
}

const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
try {
  run('file (WAL)', `sqlite:${join(dir, 'gateway.db')}`);
  await runBatched('file (WAL)', `sqlite:${join(dir, 'batched.db')}`);
  run(':memory:', 'sqlite::memory:');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
