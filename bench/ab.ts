// Before/after in one sitting: two builds of the gateway (or one build with and without metrics)
// under the same HTTP scenarios, in alternating rounds, pinned like the runner (gateways on CPU 0,
// the bench upstream and the load generator on CPU 1). On a shared machine one run's figures move
// by ±20 % from minute to minute; alternating short rounds and taking each side's median (and
// its CPU per request, which noise moves less than req/s) is what makes a change of a few percent
// visible at all. Diagnostic, like ramp.ts: no table in the README, figures printed only.
//
//   node dist/bench/ab.js --a DIST_DIR --b DIST_DIR [--only chat-chat-json@16,…] [--rounds 6] [--seconds 3]
//   node dist/bench/ab.js --b-metrics off [--a DIST_DIR]           # the same build, metrics on (a) vs off (b)
//   node dist/bench/ab.js --b-node-args='--max-semi-space-size=32'  # the same build, node flags for one side
//
// DIST_DIR is a compiled tree (`dist/` of a checkout, or a copy of one under bench/results/, so that
// its imports still resolve from this checkout's node_modules). Default: this build for both.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchConfig } from './gateway-config.js';
import { answerProblem, probe, runLoad } from './load.js';
import { cpuSeconds, freePort, hasTaskset, pinSelf, startProc, type Proc } from './procs.js';
import type { BenchEnv, HttpScenario } from './scenario.js';
import { scenarios as chatChatJson } from './chat-chat-json.js';
import { scenarios as chatChatSse } from './chat-chat-sse.js';
import { scenarios as respRespSse } from './responses-responses-sse.js';
import { scenarios as msgMsgSse } from './messages-messages-sse.js';
import { scenarios as respRespJson } from './responses-responses-json.js';
import { scenarios as msgMsgJson } from './messages-messages-json.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
const { values: args } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    'b-metrics': { type: 'string', default: 'on' },
    'a-node-args': { type: 'string', default: '' },
    'b-node-args': { type: 'string', default: '' },
    only: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
  },
});

const all: HttpScenario[] = [...chatChatJson, ...chatChatSse, ...respRespSse, ...msgMsgSse, ...respRespJson, ...msgMsgJson];
const only = args.only ? new Set(args.only.split(',')) : null;
const picked = all.filter((s) => (only ? only.has(s.name) : s.connections === 16));
const rounds = Math.max(2, Number(args.rounds));
const seconds = Math.max(1, Number(args.seconds));
const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const pinned = hasTaskset() && pinSelf(1);
const cpu = pinned ? 0 : null;
const dir = mkdtempSync(join(tmpdir(), 'gateway-ab-'));
const procs: Proc[] = [];
try {
  const upstream = await startProc({ name: 'upstream', script: here('./upstream.js'), cpu: pinned ? 1 : null, logFile: join(dir, 'upstream.log') });
  procs.push(upstream);
  const start = async (name: 'a' | 'b', distDir: string | undefined, metrics: boolean): Promise<Proc> => {
    const bin = distDir ? join(resolve(distDir), 'bin/gateway.js') : here('../bin/gateway.js');
    const configFile = join(dir, `${name}.config.json`);
    writeFileSync(configFile, JSON.stringify(benchConfig({ upstreamUrl: upstream.url, storeFile: join(dir, `${name}.db`), logLevel: 'warn', metrics })));
    const port = await freePort();
    const nodeArgs = (args[`${name}-node-args`] ?? '').split(' ').filter(Boolean);
    const p = await startProc({ name, script: bin, args: ['--config', configFile, '--host', '127.0.0.1', '--port', String(port)], cpu, logFile: join(dir, `${name}.log`), cwd: dir, port, nodeArgs });
    procs.push(p);
    return p;
  };
  const sides = [await start('a', args.a, true), await start('b', args.b, args['b-metrics'] !== 'off')];
  process.stdout.write(`a: ${args.a ?? 'this build'}; b: ${args.b ?? 'this build'}${args['b-metrics'] === 'off' ? ', metrics off' : ''}; ${rounds} alternating rounds of ${seconds}s per scenario${pinned ? ', pinned' : ', NOT pinned'}\n`);
  const env = {} as BenchEnv;
  for (const sc of picked) {
    const spec = sc.request(env);
    const connections = sc.connections ?? 16;
    const figures = sides.map(() => ({ rps: [] as number[], us: [] as number[] }));
    for (const [i, p] of sides.entries()) {
      const problem = answerProblem(await probe(p.url, spec), sc.stream);
      if (problem) throw new Error(`${sc.name} on ${p.name}: ${problem}`);
      await runLoad(p.url, spec, { connections, seconds: 1 });
      void i;
    }
    for (let r = 0; r < rounds; r++) {
      // a, b, then b, a: neither side always goes first
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        const p = sides[i]!;
        const cpu0 = cpuSeconds(p.pid);
        const load = await runLoad(p.url, spec, { connections, seconds });
        figures[i]!.rps.push(load.rps);
        figures[i]!.us.push(((cpuSeconds(p.pid) - cpu0) * 1e6) / Math.max(1, load.ok));
      }
    }
    const [a, b] = figures.map((f) => ({ rps: median(f.rps), us: median(f.us), usMin: Math.min(...f.us) }));
    const pct = (x: number, y: number): string => `${x >= y ? '+' : ''}${((100 * (x - y)) / y).toFixed(1)} %`;
    process.stdout.write(
      `${sc.name.padEnd(20)} req/s a ${a!.rps.toFixed(0)} b ${b!.rps.toFixed(0)} (${pct(b!.rps, a!.rps)}); CPU µs/req median a ${a!.us.toFixed(0)} b ${b!.us.toFixed(0)} (${pct(b!.us, a!.us)}), lowest a ${a!.usMin.toFixed(0)} b ${b!.usMin.toFixed(0)}\n`,
    );
  }
} finally {
  await Promise.all(procs.map((p) => p.stop().catch(() => undefined)));
  rmSync(dir, { recursive: true, force: true });
}
