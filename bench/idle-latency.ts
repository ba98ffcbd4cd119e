// Concurrency 1 with pauses: requests that reach a gateway which sat idle (between checkpoints of its
// WAL, timers and caches gone cold), beside the bare proxy in the same run, interleaved request by
// request (serial.ts). The judged concurrency-1 rows send the next request as soon as the last one
// ended; a gateway serving one request every second or so is idle before each of them.
//   node dist/bench/idle-latency.js [--scenario responses-responses-sse] [--gap-ms 150] [--n 200] [--b DIST]
// --b DIST: a second gateway, that build's bin/gateway.js, measured in the same rounds (an A/B).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, pinSelf, startProc, type Proc } from './procs.js';
import { benchConfig } from './gateway-config.js';
import { measureSerial } from './serial.js';
import type { BenchEnv, HttpScenario } from './scenario.js';

const here = (rel: string): string => join(dirname(fileURLToPath(import.meta.url)), rel);
const { values: args } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'responses-responses-sse' },
    'gap-ms': { type: 'string', default: '150' },
    n: { type: 'string', default: '200' },
    warm: { type: 'string', default: '2000' },
    b: { type: 'string' },
  },
});
pinSelf(1);
const dir = mkdtempSync(join(tmpdir(), 'gw-idle-'));
const procs: Proc[] = [];
process.stdout.write(`scratch: ${dir}\n`);
try {
  const upstream = await startProc({ name: 'upstream', script: here('./upstream.js'), cpu: 1, logFile: join(dir, 'upstream.log') });
  procs.push(upstream);
  const barePort = await freePort();
  const targets: { name: string; proc: Proc }[] = [];
  const bare = await startProc({ name: 'bare', script: here('./bare-proxy.js'), args: ['--upstream', upstream.url, '--port', String(barePort)], cpu: 0, logFile: join(dir, 'bare.log'), port: barePort });
  procs.push(bare);
  targets.push({ name: 'bare proxy', proc: bare });
  const builds: [string, string][] = [['gateway', here('../bin/gateway.js')]];
  if (args.b !== undefined) builds.push([`gateway (${args.b})`, join(resolve(args.b), 'bin/gateway.js')]);
  for (const [i, [name, bin]] of builds.entries()) {
    const configFile = join(dir, `gw${i}.config.json`);
    writeFileSync(configFile, JSON.stringify(benchConfig({ upstreamUrl: upstream.url, storeFile: join(dir, `gw${i}.db`), logLevel: 'warn' })));
    const port = await freePort();
    const proc = await startProc({ name: `gw${i}`, script: bin, args: ['--config', configFile, '--host', '127.0.0.1', '--port', String(port)], cpu: 0, logFile: join(dir, `gw${i}.log`), cwd: dir, port });
    procs.push(proc);
    targets.push({ name, proc });
  }
  // a scenario file exports `scenario`, or `scenarios` at several connection counts (the first is taken)
  const mod = (await import(here(`./${args.scenario}.js`))) as { scenario?: HttpScenario; scenarios?: HttpScenario[] };
  const sc = mod.scenario ?? mod.scenarios![0]!;
  const spec = sc.request({ connections: 1 } as unknown as BenchEnv);
  const urls = targets.map((t) => t.proc.url);
  await measureSerial(urls, spec, Number(args.warm), 120_000, sc.stream); // warm-up, back to back
  const gap = Number(args['gap-ms']);
  const res = await measureSerial(urls, spec, Number(args.n), Number(args.n) * (gap + 50) * urls.length, sc.stream, gap);
  const bareRes = res[0]!;
  process.stdout.write(`${args.scenario}, one request every ${gap} ms to each target, ${bareRes.n} requests each\n`);
  process.stdout.write('| target | whole answer p50 / p99 ms | added p50 ms | first token p50 ms | added p50 ms |\n|---|---|---|---|---|\n');
  for (const [i, t] of targets.entries()) {
    const r = res[i]!;
    const added = (a: number, b: number): string => (i === 0 ? '—' : `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(2)}`);
    process.stdout.write(`| ${t.name} | ${r.total.p50.toFixed(2)} / ${r.total.p99.toFixed(2)} | ${added(r.total.p50, bareRes.total.p50)} | ${r.firstToken.p50.toFixed(2)} | ${added(r.firstToken.p50, bareRes.firstToken.p50)} |\n`);
  }
} finally {
  await Promise.all(procs.map((p) => p.stop().catch(() => undefined)));
}
