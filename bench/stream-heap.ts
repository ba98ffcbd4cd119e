// A diagnostic: what the gateway's JS heap holds per open stream. Starts the bench upstream and a
// gateway (with --heapsnapshot-signal), takes a heap snapshot idle and one with N slow streams open,
// and prints the difference by constructor (count and bytes per stream).
//   node dist/bench/stream-heap.js [--streams 500] [--top 40] [--target gateway|bare] [--maps-only] [--body-kb N] [--dist DIR] [--node-args='--flag …']
// --maps-only skips the snapshots (a snapshot leaves megabytes of malloc behind, so the resident
// figures of a run with snapshots overstate the open state) and prints only resident memory.
// --body-kb N pads the request's user message to about N KB (a Claude Code request is 100-200 KB);
// --dist DIR runs the gateway of another build (a copy of its dist/, as ab.js takes).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { messagesRequest, slowClaude } from './bodies.js';
import { benchConfig } from './gateway-config.js';
import { mapsSummary } from './maps.js';
import { freePort, peakRss, pinSelf, resetPeak, rss, startProc, type Proc } from './procs.js';

const here = (rel: string): string => join(dirname(fileURLToPath(import.meta.url)), rel);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const { values: args } = parseArgs({ options: { streams: { type: 'string', default: '500' }, top: { type: 'string', default: '40' }, target: { type: 'string', default: 'gateway' }, 'maps-only': { type: 'boolean', default: false }, 'node-args': { type: 'string', default: '' }, 'body-kb': { type: 'string', default: '0' }, dist: { type: 'string', default: here('..') } } });
const N = Number(args.streams);

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** self size and count per "type:name" (live objects only: a snapshot collects garbage first) */
function byConstructor(file: string): Map<string, { count: number; size: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const stride = fields.length;
  const [fType, fName, fSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const out = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < snap.nodes.length; i += stride) {
    const type = types[snap.nodes[i + fType]!]!;
    let name = type === 'object' || type === 'closure' || type === 'native' ? snap.strings[snap.nodes[i + fName]!]! : `(${type})`;
    if (name.length > 60) name = `${name.slice(0, 57)}...`;
    const key = `${type}:${name}`;
    const e = out.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += snap.nodes[i + fSize]!;
    out.set(key, e);
  }
  return out;
}

async function snapshot(p: Proc, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(p.pid, 'SIGUSR2');
  for (let i = 0; i < 600; i++) {
    await sleep(100);
    const f = readdirSync(dir).find((n) => !before.has(n) && n.endsWith('.heapsnapshot'));
    if (f) {
      // complete when the JSON document is closed
      for (;;) {
        const text = readFileSync(join(dir, f), 'latin1').trimEnd();
        if (text.endsWith(']}')) return join(dir, f);
        await sleep(300);
      }
    }
  }
  throw new Error('no heap snapshot');
}

pinSelf(1);
const dir = mkdtempSync(join(tmpdir(), 'gw-heap-'));
const procs: Proc[] = [];
try {
  const upstream = await startProc({ name: 'upstream', script: here('./upstream.js'), cpu: 1, logFile: join(dir, 'upstream.log') });
  procs.push(upstream);
  let target: Proc;
  const nodeArgs = ['--heapsnapshot-signal=SIGUSR2', ...args['node-args'].split(' ').filter(Boolean)];
  if (args.target === 'bare') {
    target = await startProc({ name: 'bare', script: here('./bare-proxy.js'), args: ['--upstream', upstream.url], nodeArgs, cpu: 0, logFile: join(dir, 'bare.log'), cwd: dir });
  } else {
      const configFile = join(dir, 'gw.config.json');
      writeFileSync(configFile, JSON.stringify(benchConfig({ upstreamUrl: upstream.url, storeFile: join(dir, 'gw.db'), logLevel: 'warn' })));
      const port = await freePort();
      target = await startProc({ name: 'gateway', script: join(resolve(args.dist), 'bin/gateway.js'), args: ['--config', configFile, '--host', '127.0.0.1', '--port', String(port)], nodeArgs, cpu: 0, logFile: join(dir, 'gw.log'), cwd: dir, port });
    }
    procs.push(target);
    const spec = messagesRequest(slowClaude(20, 250), true);
    const padKb = Number(args['body-kb']);
    if (padKb > 0) {
      const body = JSON.parse(String(spec.body)) as { messages: { content: string }[] };
      body.messages[0]!.content += ` ${'lorem ipsum '.repeat(Math.ceil((padKb * 1024) / 12))}`;
      spec.body = JSON.stringify(body);
    }
    const pool = new Pool(new URL(target.url).origin, { connections: N, pipelining: 1 });
    const one = async (): Promise<void> => {
      const res = await pool.request({ path: spec.path, method: 'POST', headers: spec.headers, body: spec.body });
      for await (const _ of res.body);
    };
    // warm up (the first requests compile code and fill caches), then an idle snapshot
    await Promise.all(Array.from({ length: 20 }, one));
    await sleep(1500);
    const idleRss = rss(target.pid);
    const idleMaps = mapsSummary(target.pid);
    const mapsOnly = args['maps-only'];
    const idle = mapsOnly ? new Map() : byConstructor(await snapshot(target, dir));
    resetPeak(target.pid);
    const runs = Promise.all(Array.from({ length: N }, one));
    await sleep(2000); // every stream open, a few deltas in
    const openRss = rss(target.pid);
    const openMaps = mapsSummary(target.pid);
    const mapsLine = `resident memory by kind of mapping, idle → open (MB): ${Object.keys(openMaps).map((k) => `${k} ${((idleMaps[k] ?? 0) / 1024).toFixed(1)} → ${(openMaps[k]! / 1024).toFixed(1)}`).join('; ')}`;
    if (mapsOnly) {
      await runs;
      await pool.close();
      console.log(`${args.target}: ${N} open streams; RSS ${(idleRss / 2 ** 20).toFixed(0)} → ${(openRss / 2 ** 20).toFixed(0)} MB = ${((openRss - idleRss) / N / 1024).toFixed(1)} KB per stream; peak ${(peakRss(target.pid) / 2 ** 20).toFixed(0)} MB`);
      console.log(mapsLine);
    } else {
    const open = byConstructor(await snapshot(target, dir));
    await runs;
    await pool.close();
    const rows = [...open].map(([k, v]) => {
      const b = idle.get(k) ?? { count: 0, size: 0 };
      return { k, count: v.count - b.count, size: v.size - b.size };
    });
    rows.sort((a, b) => b.size - a.size);
    const total = rows.reduce((s, r) => s + r.size, 0);
    const idleHeap = [...idle.values()].reduce((s, v) => s + v.size, 0);
    // not every stream has its response open 2 s in on a loaded machine (the gateway holds, checks the
    // answer's start...): per response open at the snapshot is the figure to compare between runs
    const responses = (open.get('object:ServerResponse')?.count ?? 0) - (idle.get('object:ServerResponse')?.count ?? 0);
    console.log(`${args.target}: idle live JS heap ${(idleHeap / 2 ** 20).toFixed(1)} MB; ${N} open streams; RSS ${(idleRss / 2 ** 20).toFixed(0)} → ${(openRss / 2 ** 20).toFixed(0)} MB; live JS heap +${(total / 2 ** 20).toFixed(1)} MB = ${(total / N / 1024).toFixed(1)} KB per stream, ${(total / Math.max(1, responses) / 1024).toFixed(1)} KB per response open at the snapshot (${responses})`);
    console.log(mapsLine);
    console.log('bytes/stream  count/stream  constructor');
    for (const r of rows.slice(0, Number(args.top))) console.log(`${(r.size / N).toFixed(0).padStart(12)}  ${(r.count / N).toFixed(2).padStart(12)}  ${r.k}`);
  }
} finally {
  await Promise.all(procs.map((p) => p.stop().catch(() => undefined)));
}
