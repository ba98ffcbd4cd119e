// Scenario: reserve + settle throughput of the ledger alone (no HTTP): SQLite from bench/store.ts,
// PostgreSQL from bench/store-pg.ts (skipped without PostgreSQL), each run as its own process on
// the gateway's CPU.
import { fileURLToPath } from 'node:url';
import { runScript } from './procs.js';
import type { CustomScenario, Row } from './scenario.js';

const script = fileURLToPath(new URL('./store.js', import.meta.url));
/** the same on PostgreSQL (a server started for the run), and its locking comparison */
const pgScript = fileURLToPath(new URL('./store-pg.js', import.meta.url));

export const scenario: CustomScenario = {
  kind: 'custom',
  name: 'store',
  title: 'Store reserve+settle (no HTTP)',
  async run(env) {
    const iterations = env.quick ? 3000 : 20_000;
    const r = await runScript(script, [String(iterations)], env.gateway.cpu, 120_000);
    const rows: Row[] = [];
    // "file (WAL)   20000 reserve+settle in 1234 ms: 16207 round trips/s (61.7 µs each)"
    for (const line of r.stdout.split('\n')) {
      const m = /^(.+?)\s+(\d+) reserve\+settle in (\d+) ms: (\d+) round trips\/s \(([\d.]+) µs each\)/.exec(line.trim());
      if (!m) continue;
      rows.push({ scenario: this.name, target: `store ${m[1]}`, rps: Number(m[4]), cpuUsPerReq: Number(m[5]), notes: [`${m[2]} reserve+settle round trips, one process`] });
    }
    if (rows.length === 0) rows.push({ scenario: this.name, target: 'store', notes: [], skipped: `bench/store.js failed (exit ${r.code}): ${(r.stderr || r.stdout).slice(-300)}` });
    const p = await runScript(pgScript, [String(env.quick ? 1000 : 10_000)], env.gateway.cpu, 600_000);
    let pgRows = 0;
    const locking: string[] = [];
    for (const line of p.stdout.split('\n')) {
      const m = /^(.+?)\s+(\d+) reserve\+settle in (\d+) ms: (\d+) round trips\/s \(([\d.]+) µs each\)/.exec(line.trim());
      if (m) {
        pgRows++;
        rows.push({ scenario: this.name, target: `store ${m[1]}`, rps: Number(m[4]), cpuUsPerReq: Number(m[5]), notes: [`${m[2]} reserve+settle, µs column: wall time per request (the database's CPU is elsewhere)`] });
      } else if (line.startsWith('locking ')) locking.push(line.slice('locking '.length));
    }
    if (locking.length > 0) rows.push({ scenario: this.name, target: 'store postgres, locking', notes: locking });
    if (pgRows === 0) rows.push({ scenario: this.name, target: 'store postgres', notes: [], skipped: `bench/store-pg.js: ${(p.stdout.trim() || p.stderr).slice(-300)}` });
    return rows;
  },
};
