// Scenario: reserve + settle throughput of the SQLite ledger alone (no HTTP), from bench/store.ts,
// run as its own process on the gateway's CPU.
import { fileURLToPath } from 'node:url';
import { runScript } from './procs.js';
import type { CustomScenario, Row } from './scenario.js';

const script = fileURLToPath(new URL('./store.js', import.meta.url));

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
    return rows;
  },
};
