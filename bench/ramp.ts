// A diagnostic: one gateway (or bare proxy) under constant load, throughput and CPU per request
// printed every few seconds, to see how long it takes to reach its steady state.
//   node dist/bench/ramp.js [--target gateway|bare] [--scenario messages-json] [--steps 10] [--seconds 3] [--node-args=...]
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuSeconds, CLK_TCK, freePort, pinSelf, startProc, type Proc } from './procs.js';
import { benchConfig } from './gateway-config.js';
import { runLoad } from './load.js';
import type { BenchEnv, HttpScenario } from './scenario.js';

const here = (rel: string): string => join(dirname(fileURLToPath(import.meta.url)), rel);
const { values: args } = parseArgs({
  options: {
    target: { type: 'string', default: 'gateway' },
    scenario: { type: 'string', default: 'messages-json' },
    steps: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '3' },
    'node-args': { type: 'string' },
  },
});
pinSelf(1);
const dir = mkdtempSync(join(tmpdir(), 'gw-ramp-'));
const procs: Proc[] = [];
process.stdout.write(`scratch: ${dir}\n`);
try {
  const upstream = await startProc({ name: 'upstream', script: here('./upstream.js'), cpu: 1, logFile: join(dir, 'upstream.log') });
  procs.push(upstream);
  let target: Proc;
  if (args.target === 'bare') {
    target = await startProc({ name: 'bare', script: here('./bare-proxy.js'), args: ['--upstream', upstream.url], nodeArgs: args['node-args']?.split(/\s+/).filter(Boolean) ?? [], cpu: 0, logFile: join(dir, 'bare.log') });
  } else {
    const configFile = join(dir, 'gw.config.json');
    writeFileSync(configFile, JSON.stringify(benchConfig({ upstreamUrl: upstream.url, storeFile: join(dir, 'gw.db'), logLevel: 'warn' })));
    const port = await freePort();
    const nodeArgs = args['node-args']?.split(/\s+/).filter(Boolean) ?? [];
    target = await startProc({ name: 'gateway', script: here('../bin/gateway.js'), args: ['--config', configFile, '--host', '127.0.0.1', '--port', String(port)], nodeArgs, cpu: 0, logFile: join(dir, 'gw.log'), cwd: dir, port });
  }
  procs.push(target);
  const sc = ((await import(here(`./${args.scenario}.js`))) as { scenario: HttpScenario }).scenario;
  const env = { connections: 16 } as unknown as BenchEnv;
  const spec = sc.request(env);
  for (let i = 0; i < Number(args.steps); i++) {
    const cpu0 = cpuSeconds(target.pid);
    const r = await runLoad(target.url, spec, { connections: 16, seconds: Number(args.seconds) });
    const cpu = cpuSeconds(target.pid) - cpu0;
    process.stdout.write(`step ${i + 1}: ${Math.round(r.rps)} req/s, ${Math.round((cpu * 1e6) / Math.max(1, r.ok))} µs CPU/req (${r.ok} ok; CLK_TCK ${CLK_TCK})\n`);
  }
} finally {
  await Promise.all(procs.map((p) => p.stop().catch(() => undefined)));
}
