// Scenario: one gateway replica on PostgreSQL against the same gateway on SQLite (the runner's
// gateway): Messages JSON under the same closed-loop load, requests per second, the gateway's CPU
// per request, and the database server's CPU per request (PostgreSQL runs in its own processes;
// SQLite's work is inside the gateway's figure). The server is started for the run from Debian's
// packages (test/helpers/postgres.ts) with synchronous_commit off, the durability SQLite's
// synchronous=NORMAL has; it is not pinned (it shares the machine with the load generator).
// Skipped without PostgreSQL.
import { CLAUDE, messagesRequest } from './bodies.js';
import { answerProblem, probe, runLoad } from './load.js';
import { cpuSeconds, treeCpuSeconds } from './procs.js';
import type { CustomScenario, Row, Target } from './scenario.js';
import { postgresBin, startPostgres } from '../test/helpers/postgres.js';

export const scenario: CustomScenario = {
  kind: 'custom',
  name: 'replica-store',
  title: 'One replica: PostgreSQL store vs SQLite (Messages JSON)',
  async run(env) {
    if (postgresBin() === null) return [{ scenario: this.name, target: 'gateway (PostgreSQL)', notes: [], skipped: 'PostgreSQL is not installed' }];
    const server = await startPostgres({ settings: { fsync: 'on', full_page_writes: 'on', synchronous_commit: 'off' } });
    const rows: Row[] = [];
    try {
      const replica = await env.freshGateway('gateway-postgres', { store: server.createDatabase() });
      try {
        const spec = messagesRequest(CLAUDE, false);
        const seconds = env.quick ? 2 : env.seconds;
        const targets: [string, Target, number][] = [
          ['gateway (SQLite)', env.gateway, 0],
          ['gateway (PostgreSQL)', replica.target, server.pid],
        ];
        for (const [label, t, dbPid] of targets) {
          const problem = answerProblem(await probe(t.url, spec), false);
          if (problem) {
            rows.push({ scenario: this.name, target: label, notes: [], skipped: `requests fail: ${problem}` });
            continue;
          }
          await runLoad(t.url, spec, { connections: env.connections, seconds: env.quick ? 0.5 : 2 });
          const cpu0 = cpuSeconds(t.pid);
          const db0 = dbPid ? treeCpuSeconds(dbPid) : 0;
          const load = await runLoad(t.url, spec, { connections: env.connections, seconds });
          const cpu = cpuSeconds(t.pid) - cpu0;
          const db = dbPid ? treeCpuSeconds(dbPid) - db0 : 0;
          const notes = [`${load.ok} requests at ${env.connections} connections, ${load.failed} failed`];
          if (dbPid) notes.push(`PostgreSQL server: ${Math.round((db * 1e6) / Math.max(1, load.ok))} µs CPU per request (not pinned)`);
          rows.push({ scenario: this.name, target: label, rps: load.rps, p50: load.p50, p99: load.p99, cpuUsPerReq: (cpu * 1e6) / Math.max(1, load.ok), cpuPct: (100 * cpu) / load.seconds, notes });
        }
      } finally {
        await replica.stop();
      }
    } finally {
      await server.stop();
    }
    return rows;
  },
};
