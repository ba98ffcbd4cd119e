// A diagnostic: instructions per request of the whole gateway (bin/gateway, a build's dist) or of
// the bare proxy, counted by valgrind, which other load on the machine does not move. The target
// runs under callgrind with instrumentation off while it warms up (V8 tiers code up for thousands
// of requests), then counts `--requests` requests sent one at a time (ledger batches of one), then
// dumps. The bench upstream runs outside valgrind. V8's --single-threaded (the default here) keeps
// compilation and GC on the main thread, so the count does not depend on background threads' timing.
// The figures to compare are the main thread's without TurboFan's (compilation still goes on after
// warm-up: 330-360 K a request, ±20 K between runs) and the mutator's (without the GC's too). A run
// now and then holds a major GC (+130 K) or a deoptimised stretch (builtins and ICs doubled): run
// each build three times or more and compare medians. Session 8: two runs of one build 0.3-0.6 %
// apart, where counting two whole runs of different lengths (cachegrind) moved by 5-10 %.
//
//   node dist/bench/gateway-instructions.js [--dist DIR] [--bare] [--row chat-json|chat-sse|msg-sse|resp-sse]
//        [--warm 2500] [--requests 1000] [--node-args '--single-threaded']
//
// Needs valgrind (callgrind, callgrind_control, callgrind_annotate). Under a loaded machine a run
// takes 5-10 minutes; run two builds side by side, each twice, to see the spread.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CLAUDE, GPT, GPT_RESPONSES, supportChatRequest, supportMessagesRequest, supportResponsesRequest } from './bodies.js';
import { benchConfig } from './gateway-config.js';
import { freePort, startProc } from './procs.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    dist: { type: 'string', default: join(here, '..') },
    bare: { type: 'boolean', default: false },
    row: { type: 'string', default: 'chat-json' },
    warm: { type: 'string', default: '2500' },
    requests: { type: 'string', default: '1000' },
    'node-args': { type: 'string', default: '--single-threaded' },
  },
});
const n = Number(args.requests);
const rows = {
  'chat-json': () => supportChatRequest(GPT, false),
  'chat-sse': () => supportChatRequest(GPT, true),
  'msg-sse': () => supportMessagesRequest(CLAUDE, true),
  'resp-sse': () => supportResponsesRequest(GPT_RESPONSES, true),
} as const;
const spec = rows[args.row as keyof typeof rows]?.();
if (spec === undefined) throw new Error(`--row: one of ${Object.keys(rows).join(', ')}`);

const dir = mkdtempSync(join(tmpdir(), 'gw-instr-'));
const upstream = await startProc({ name: 'upstream', script: join(here, 'upstream.js'), logFile: join(dir, 'upstream.log') });
const port = await freePort();
let target: string[];
if (args.bare) target = [join(here, 'bare-proxy.js'), '--upstream', upstream.url, '--port', String(port)];
else {
  const configFile = join(dir, 'gateway.json');
  writeFileSync(configFile, JSON.stringify(benchConfig({ upstreamUrl: upstream.url, storeFile: join(dir, 'gateway.db'), logLevel: 'warn' })));
  target = [join(resolve(args.dist), 'bin/gateway.js'), '--config', configFile, '--host', '127.0.0.1', '--port', String(port)];
}
const out = join(dir, 'callgrind.out');
const nodeArgs = args['node-args'] === '' ? [] : args['node-args'].split(' ');
const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${out}`, process.execPath, ...nodeArgs, ...target], { cwd: dir, stdio: 'ignore' });
const exited = new Promise((r) => child.once('exit', r));

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const body = Buffer.from(spec.body);
const one = (): Promise<number> =>
  new Promise((done, fail) => {
    const req = http.request({ host: '127.0.0.1', port, path: spec.path, method: 'POST', headers: { ...spec.headers, 'content-length': body.length }, agent }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', fail);
    req.end(body);
  });
const many = async (count: number): Promise<void> => {
  for (let i = 0; i < count; i++) {
    const status = await one();
    if (status !== 200) throw new Error(`status ${status}`);
  }
};
for (let tries = 0; ; tries++) {
  try {
    await one();
    break;
  } catch (err) {
    if (tries > 900) throw err;
    await new Promise((r) => setTimeout(r, 200));
  }
}
await many(Number(args.warm));
// callgrind_control waits until the target next runs: the gateway's 1 s connection check wakes it
const control = (...flags: string[]): string => execFileSync('callgrind_control', [...flags, String(child.pid)], { encoding: 'utf8' });
control('-i', 'on');
control('-z');
await many(n);
control('-d');
agent.destroy();
child.kill('SIGTERM');
await exited;
await upstream.stop();

const TURBOFAN = /compiler::|Zone|maglev|Maglev|Pipeline|InstructionSelector|RegisterAllocat|LiveRange/;
const GC = /Marking|Sweep|Scaveng|Heap|heap::|Evacuat|GC|Remembered|SlotSet|MemoryChunk|RecordWrite|IterateObjectCache|SizeFromMap|Compactor|ObjectVisitor|BodyDescriptor/;

/** instructions per request of one thread's dump: all, TurboFan's and the garbage collector's */
function perRequest(file: string): { all: number; turbofan: number; gc: number } {
  const text = execFileSync('callgrind_annotate', ['--threshold=100', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  let all = 0;
  let turbofan = 0;
  let gc = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (m === null || m[2]!.startsWith('PROGRAM TOTALS')) continue;
    const ir = Number(m[1]!.replace(/,/g, ''));
    all += ir;
    if (TURBOFAN.test(m[2]!)) turbofan += ir;
    else if (GC.test(m[2]!)) gc += ir;
  }
  return { all: Math.round(all / n), turbofan: Math.round(turbofan / n), gc: Math.round(gc / n) };
}
const dumps = readdirSync(dir).filter((f) => f.startsWith('callgrind.out.') && /-\d+$/.test(f));
const main = dumps.find((f) => f.endsWith('-01'));
if (main === undefined) throw new Error(`no dump of the main thread in ${dir}`);
const counted = perRequest(join(dir, main));
console.log(
  JSON.stringify({
    target: args.bare ? 'bare' : resolve(args.dist),
    row: args.row,
    requests: n,
    mainThreadPerRequest: counted.all,
    turbofanPerRequest: counted.turbofan,
    gcPerRequest: counted.gc,
    mainWithoutTurbofan: counted.all - counted.turbofan,
    mutatorPerRequest: counted.all - counted.turbofan - counted.gc,
  }),
);
rmSync(dir, { recursive: true, force: true });
