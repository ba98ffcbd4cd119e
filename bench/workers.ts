// Scenario: `bin/gateway --workers 2` against one gateway process, non-streaming Messages (the
// messages-json request), beside the bare proxy. Both gateways use the bench config with a rate
// limit on the key (far above what the run sends), so every request asks the rate limiter: in one
// process its own buckets, under --workers the cluster primary's over IPC. The single process is
// pinned to the gateway's CPU as in every other row; the two workers are not pinned (the point is to
// use a second core), so they share CPU 1 with the upstream and the load generator: on a 2-core
// machine that, not the gateway, bounds what the second worker can add.
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
    const measure = async (url: string): Promise<{ rps: number; p50: number; p99: number; failed: number }> => {
      await runLoad(url, spec, { connections: env.connections, seconds: warm });
      const r = await runLoad(url, spec, { connections: env.connections, seconds: env.seconds });
      return { rps: r.rps, p50: r.p50, p99: r.p99, failed: r.failed };
    };
    const rows: Row[] = [];
    const bare = await measure(env.bare.url);
    rows.push({ scenario: this.name, target: 'bare', rps: bare.rps, p50: bare.p50, p99: bare.p99, notes: ['pinned to the gateway CPU'] });
    const one = await startGateway(env.dir, env.upstream.url, 'gateway-one', env.gateway.cpu, []);
    try {
      const r = await measure(one.url);
      rows.push({ scenario: this.name, target: 'gateway, 1 process', rps: r.rps, p50: r.p50, p99: r.p99, ratio: r.rps / bare.rps, notes: [`pinned to CPU ${env.gateway.cpu ?? 'any'}`, ...(r.failed ? [`${r.failed} failed`] : [])] });
    } finally {
      await one.stop();
    }
    const two = await startGateway(env.dir, env.upstream.url, 'gateway-workers', null, ['--workers', '2']);
    try {
      // the listener accepts once the first worker listens: give the second a moment
      await new Promise((r) => setTimeout(r, 1000));
      const r = await measure(two.url);
      rows.push({ scenario: this.name, target: 'gateway, --workers 2', rps: r.rps, p50: r.p50, p99: r.p99, ratio: r.rps / bare.rps, notes: ['not pinned: shares CPU 1 with the upstream and the load generator', ...(r.failed ? [`${r.failed} failed`] : [])] });
    } finally {
      await two.stop();
    }
    return rows;
  },
};
