// Scenario: `bin/gateway --workers 2` against one gateway process, non-streaming Messages (the
// messages-json request), beside the bare proxy; one process is measured pinned (as in every other
// row) and not pinned (as the workers are), the latter being the comparison that isolates the workers. Both gateways use the bench config with a rate
// limit on the key (far above what the run sends), so every request asks the rate limiter: in one
// process its own buckets, under --workers the cluster primary's over IPC. The single process is
// pinned to the gateway's CPU as in every other row; the two workers are not pinned (the point is to
// use a second core), so they share CPU 1 with the upstream and the load generator: on a 2-core
// machine that bounds what the second worker can add. So does the store: both workers write one
// SQLite file, whose write lock they take in turn (each batch of holds and settles is one
// transaction; a waiting process sleeps in SQLite's busy handler), so on SQLite the second worker
// buys little or nothing; on PostgreSQL the workers' batches run side by side.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchConfig } from './gateway-config.js';
import { CLAUDE, messagesRequest } from './bodies.js';
import { runLoad } from './load.js';
import { freePort, startProc, type Proc } from './procs.js';
import type { CustomScenario, Row } from './scenario.js';

const GATEWAY_BIN = fileURLToPath(new URL('../bin/gateway.js', import.meta.url));

async function startGateway(dir: string, upstreamUrl: string, name: string, cpu: number | null, extraArgs: string[]): Promise<Proc> {
  const config = benchConfig({ upstreamUrl, storeFile: join(dir, `${name}.db`), logLevel: 'warn' });
  const keys = (config.keys as Record<string, unknown>[]).map((k) => ({ ...k, rateLimit: { rpm: 100_000_000 } }));
  const file = join(dir, `${name}.config.json`);
  writeFileSync(file, JSON.stringify({ ...config, keys }, null, 2));
  const port = await freePort();
  return startProc({ name, script: GATEWAY_BIN, args: ['--config', file, '--host', '127.0.0.1', '--port', String(port), ...extraArgs], cpu, logFile: join(dir, `${name}.log`), cwd: dir, port });
}

export const scenario: CustomScenario = {
  kind: 'custom',
  name: 'workers',
  title: 'Two workers vs one process (Messages JSON, rate-limited key)',
  async run(env) {
    const spec = messagesRequest(CLAUDE, false);
    const warm = env.quick ? 0.3 : 2;
    const rounds = env.quick ? 1 : 3;
    const one = await startGateway(env.dir, env.upstream.url, 'gateway-one', env.gateway.cpu, []);
    const oneFree = await startGateway(env.dir, env.upstream.url, 'gateway-one-unpinned', null, []);
    const two = await startGateway(env.dir, env.upstream.url, 'gateway-workers', null, ['--workers', '2']);
    try {
      // the listener accepts once the first worker listens: give the second a moment
      await new Promise((r) => setTimeout(r, 1000));
      const targets = [
        { name: 'bare', url: env.bare.url, note: 'pinned to the gateway CPU' },
        { name: 'gateway, 1 process', url: one.url, note: `pinned to CPU ${env.gateway.cpu ?? 'any'}` },
        { name: 'gateway, 1 process, not pinned', url: oneFree.url, note: 'the fair comparison for --workers 2: free to use either CPU' },
        { name: 'gateway, --workers 2', url: two.url, note: 'not pinned: shares CPU 1 with the upstream and the load generator' },
      ];
      for (const target of targets) await runLoad(target.url, spec, { connections: env.connections, seconds: warm });
      // alternating rounds, the best of each kept: other load on the machine comes and goes
      const best = new Map<string, { rps: number; p50: number; p99: number; failed: number }>();
      for (let round = 0; round < rounds; round++) {
        for (const target of targets) {
          const r = await runLoad(target.url, spec, { connections: env.connections, seconds: env.seconds });
          if ((best.get(target.name)?.rps ?? -1) < r.rps) best.set(target.name, { rps: r.rps, p50: r.p50, p99: r.p99, failed: r.failed });
        }
      }
      const bare = best.get('bare')!;
      return targets.map((target): Row => {
        const r = best.get(target.name)!;
        return {
          scenario: this.name,
          target: target.name,
          rps: r.rps,
          p50: r.p50,
          p99: r.p99,
          ...(target.name === 'bare' ? {} : { ratio: r.rps / bare.rps }),
          notes: [target.note, ...(r.failed ? [`${r.failed} failed`] : [])],
        };
      });
    } finally {
      await Promise.all([one.stop(), oneFree.stop(), two.stop()]);
    }
  },
};
