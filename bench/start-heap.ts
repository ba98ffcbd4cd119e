// A diagnostic: what a freshly started process holds before any request, the gateway (bench
// config) beside the bare proxy. Resident memory by kind of mapping, V8 heap used and committed,
// and, with --alloc, every byte the start allocated (garbage included: V8 keeps the heap it grew
// to, so start-up garbage stays resident) by package and by the gateway function that asked for it.
//   node dist/bench/start-heap.js [--runs 3] [--alloc] [--top 20]
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchConfig } from './gateway-config.js';
import { mapsSummary } from './maps.js';
import { freePort, rss, startProc, type Proc } from './procs.js';

const here = (rel: string): string => join(dirname(fileURLToPath(import.meta.url)), rel);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '3' }, alloc: { type: 'boolean', default: false }, top: { type: 'string', default: '20' } } });
const MB = 2 ** 20;

// Loaded into the measured process with --import: heap figures on SIGWINCH; with --alloc, V8's
// sampling heap profiler from the first module on, objects collected by either GC included.
const PRELOAD = (out: string, alloc: boolean): string => `
import v8 from 'node:v8';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
const s = ${alloc} ? new Session() : null;
s?.connect();
s?.post('HeapProfiler.enable');
s?.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
process.on('SIGWINCH', () => {
  const h = v8.getHeapStatistics();
  const write = (profile) => writeFileSync(${JSON.stringify(out)}, JSON.stringify({ used: h.used_heap_size, total: h.total_heap_size, external: h.external_memory, profile }));
  if (s) s.post('HeapProfiler.stopSampling', (e, r) => write(r?.profile ?? null));
  else write(null);
});`;

interface ProfileNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: ProfileNode[];
}

/** bytes allocated by package (node_modules) or `gateway`/`node`, and by the innermost gateway function */
function allocations(head: ProfileNode): { total: number; byPackage: Map<string, number>; byFunction: Map<string, number> } {
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  const add = (m: Map<string, number>, k: string, v: number): void => void m.set(k, (m.get(k) ?? 0) + v);
  const walk = (n: ProfileNode, pkg: string, fn: string): void => {
    const url = n.callFrame.url;
    const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (inPackage) pkg = inPackage[1]!;
    else if (/\/dist\/(lib|stages|bin)\//.test(url)) {
      pkg = 'gateway';
      fn = `${url.replace(/.*\/dist\//, '')} ${n.callFrame.functionName || '(top level)'}`;
    }
    total += n.selfSize;
    add(byPackage, pkg, n.selfSize);
    add(byFunction, fn, n.selfSize);
    for (const c of n.children) walk(c, pkg, fn);
  };
  walk(head, 'node (module loading, bootstrap)', '(not under a gateway function)');
  return { total, byPackage, byFunction };
}

interface Stats {
  used: number;
  total: number;
  external: number;
  profile: { head: ProfileNode } | null;
}

/** the figures the preload writes on SIGWINCH, once the file is complete (up to 10 s) */
async function readStats(file: string): Promise<Stats | null> {
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Stats;
    } catch {
      // not written yet, or not completely
    }
  }
  return null;
}

const top = (m: Map<string, number>, n: number): string =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `  ${(v / MB).toFixed(2).padStart(7)} MB  ${k}`).join('\n');

const dir = mkdtempSync(join(tmpdir(), 'gw-start-heap-'));
const procs: Proc[] = [];
try {
  const upstream = await startProc({ name: 'upstream', script: here('./upstream.js'), logFile: join(dir, 'upstream.log') });
  procs.push(upstream);
  for (let run = 1; run <= Number(args.runs); run++) {
    for (const name of ['bare', 'gateway'] as const) {
      const out = join(dir, `${name}-${run}.json`);
      const preload = join(dir, `${name}-${run}.mjs`);
      writeFileSync(preload, PRELOAD(out, args.alloc && name === 'gateway'));
      const nodeArgs = ['--import', preload];
      let p: Proc;
      if (name === 'bare') {
        p = await startProc({ name, script: here('./bare-proxy.js'), args: ['--upstream', upstream.url], nodeArgs, logFile: join(dir, `${name}.log`), cwd: dir });
      } else {
        const configFile = join(dir, 'gw.config.json');
        writeFileSync(configFile, JSON.stringify(benchConfig({ upstreamUrl: upstream.url, storeFile: join(dir, `gw-${run}.db`), logLevel: 'warn' })));
        const port = await freePort();
        p = await startProc({ name, script: here('../bin/gateway.js'), args: ['--config', configFile, '--host', '127.0.0.1', '--port', String(port)], nodeArgs, logFile: join(dir, `${name}.log`), cwd: dir, port });
      }
      procs.push(p);
      await sleep(2000);
      process.kill(p.pid, 'SIGWINCH');
      const stats = await readStats(out);
      if (stats === null) throw new Error(`${name}: no heap figures`);
      const resident = rss(p.pid);
      const maps = mapsSummary(p.pid);
      await p.stop();
      procs.splice(procs.indexOf(p), 1);
      console.log(`run ${run} ${name.padEnd(7)} RSS ${(resident / MB).toFixed(1)} MB; V8 heap used ${(stats.used / MB).toFixed(1)} MB of ${(stats.total / MB).toFixed(1)} MB committed; external ${(stats.external / MB).toFixed(1)} MB`);
      console.log(`  resident by mapping (MB): ${Object.entries(maps).filter(([, kb]) => kb >= 512).map(([k, kb]) => `${k} ${(kb / 1024).toFixed(1)}`).join('; ')}`);
      if (stats.profile) {
        const a = allocations(stats.profile.head);
        console.log(`  allocated while starting (sampled, garbage included): ${(a.total / MB).toFixed(1)} MB\n  by package:\n${top(a.byPackage, Number(args.top))}\n  by gateway function:\n${top(a.byFunction, Number(args.top))}`);
      }
    }
  }
} finally {
  await Promise.all(procs.map((p) => p.stop().catch(() => undefined)));
}
