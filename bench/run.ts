// The benchmark runner: `npm run bench` (about 12 minutes) or `npm run bench:quick` (about 2 minutes).
// Starts the bench upstream, the bare proxy and the gateway (full validation, auth, billing on a
// file-backed SQLite store), pins the systems under test to CPU 0 and the upstream and the load
// generator (this process) to CPU 1, runs every scenario against the bare proxy and the gateway in
// the same run, and prints one table. Targets are reported, never asserted: the exit code is
// non-zero only when the harness itself breaks.
//
//   node dist/bench/run.js [--quick] [--only a,b] [--skip a,b] [--seconds N] [--warm N] [--no-info]
//                          [--profile [--log-level warn]] [--out DIR] [--keep] [--list] [--connections 16]
//                          [--metrics off] (the gateway collects no Prometheus series: compare CPU/req with and without)
//                          [--loadgen wrk|autocannon] (closed-loop phases; wrk when installed)
//   --only judged           the rows issue #21 is judged on (and slow-streams)
// The scenarios are listed in scenarios.ts; --profile runs profile-run.ts instead of the table.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { benchConfig } from './gateway-config.js';
import { BENCH_KEY } from './bodies.js';
import { runHttp, type Timing } from './http-phases.js';
import { freePort, hasTaskset, pinSelf, startProc, type Proc } from './procs.js';
import { quietCheck } from './quiet.js';
import { checkTargets, formatTargets, markdownTable } from './table.js';
import type { BenchEnv, HttpScenario, Row, Scenario, Target } from './scenario.js';
import { loadScenarios } from './scenarios.js';
import { profileRun } from './profile-run.js';
import { loadGeneratorName, useLoadGenerator } from './wrk.js';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
const ROOT = here('../../');
const GATEWAY_BIN = join(ROOT, 'dist/bin/gateway.js');

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    skip: { type: 'string' },
    seconds: { type: 'string' },
    warm: { type: 'string' },
    'no-info': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    out: { type: 'string' },
    list: { type: 'boolean', default: false },
    connections: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'warn' },
    'node-args': { type: 'string' },
    metrics: { type: 'string', default: 'on' },
    loadgen: { type: 'string', default: 'wrk' },
  },
});
useLoadGenerator(args.loadgen ?? 'wrk');

const quick = args.quick === true;
const timing: Timing = quick
  ? { warm: 0.3, rounds: 1, seconds: 1, paced: 0.5, pace: 1000, ttftN: 20, ttftMaxMs: 800 }
  : { warm: 2, rounds: 3, seconds: 9, paced: 4, pace: 1000, ttftN: 300, ttftMaxMs: 6000 };
if (args.seconds) timing.seconds = Math.max(0.5, Number(args.seconds));
if (args.warm) timing.warm = Math.max(0.1, Number(args.warm));
const CONNECTIONS = Number(args.connections ?? 16);

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

const procs: Proc[] = [];
async function stopAll(): Promise<void> {
  await Promise.all(procs.splice(0).map((p) => p.stop().catch(() => undefined)));
}
process.once('SIGINT', () => {
  stopAll().finally(() => process.exit(130));
});

async function startGateway(dir: string, upstreamUrl: string, o: { logLevel: string; name: string; cpu: number | null; profileDir?: string; store?: string }): Promise<Proc> {
  const configFile = join(dir, `${o.name}.config.json`);
  writeFileSync(configFile, JSON.stringify(benchConfig({ upstreamUrl, storeFile: join(dir, `${o.name}.db`), logLevel: o.logLevel, store: o.store, metrics: args.metrics !== 'off' }), null, 2));
  const nodeArgs = [...(args['node-args']?.split(/\s+/).filter(Boolean) ?? []), ...(o.profileDir ? ['--cpu-prof', '--cpu-prof-dir', o.profileDir] : [])];
  // at logLevel warn the gateway prints no `listening` line: give it a port and wait for it to accept
  const port = await freePort();
  const p = await startProc({ name: o.name, script: GATEWAY_BIN, args: ['--config', configFile, '--host', '127.0.0.1', '--port', String(port)], nodeArgs, cpu: o.cpu, logFile: join(dir, `${o.name}.log`), cwd: dir, port });
  procs.push(p);
  return p;
}

function billingCheck(dbFile: string): string {
  try {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    const usage = (db.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n;
    const open = (db.prepare('SELECT COUNT(*) AS n FROM reservations').get() as { n: number }).n;
    db.close();
    return `billing: ${usage.toLocaleString('en-US')} usage records written by the gateway (one per billed request), ${open} reservations left open after shutdown`;
  } catch (err) {
    return `billing: could not read the store (${(err as Error).message})`;
  }
}

async function main(): Promise<number> {
  const all = await loadScenarios();
  if (args.list) {
    for (const s of all) process.stdout.write(`${s.name.padEnd(26)} ${s.title}\n`);
    return 0;
  }
  const isJudged = (s: Scenario): boolean => s.kind === 'http' && s.judged === true;
  const only = args.only ? new Set(args.only.split(',')) : null;
  const skip = new Set((args.skip ?? '').split(',').filter(Boolean));
  const picked = (s: Scenario): boolean => only === null || only.has(s.name) || (only.has('judged') && (isJudged(s) || s.name === 'slow-streams'));
  // quick (CI) mode: the #21 rows at 16 connections only
  let scenarios = all.filter((s) => picked(s) && !skip.has(s.name) && !(quick && isJudged(s) && s.kind === 'http' && (s.connections ?? 16) !== 16));
  if (args.profile && !only) scenarios = all.filter((s) => s.kind === 'http' && (s.main || (isJudged(s) && s.connections === 16) || s.name === 'chat-to-anthropic-stream' || s.name === 'messages-to-chat-stream'));
  if (scenarios.length === 0) throw new Error(`no scenario selected; known: ${all.map((s) => s.name).join(', ')}`);
  if (!existsSync(GATEWAY_BIN)) throw new Error(`${GATEWAY_BIN} is missing: run npm run build first`);

  const started = Date.now();
  const pinned = cpus().length >= 2 && hasTaskset() && pinSelf(1);
  const sutCpu = pinned ? 0 : null;
  const loadCpu = pinned ? 1 : null;
  const header: string[] = [`gateway benchmark (${quick ? 'quick' : 'full'}), node ${process.version}, ${new Date().toISOString()}`];
  header.push(pinned ? `pinning: bare proxy and gateway on CPU 0; upstream and load generator (${loadGeneratorName()} for throughput; autocannon, undici for the rest) on CPU 1` : 'WARNING: no CPU pinning (needs taskset and 2 CPUs): figures are not comparable with the README');
  const quiet = await quietCheck(quick ? 500 : 1500);
  header.push(...quiet.lines);
  for (const l of header) log(l);

  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const outDir = args.out ?? join(ROOT, 'bench/results');
  mkdirSync(outDir, { recursive: true });
  const upstream = await startProc({ name: 'upstream', script: here('./upstream.js'), cpu: loadCpu, logFile: join(dir, 'upstream.log') });
  procs.push(upstream);
  const bareProc = await startProc({ name: 'bare-proxy', script: here('./bare-proxy.js'), args: ['--upstream', upstream.url], cpu: sutCpu, logFile: join(dir, 'bare.log') });
  procs.push(bareProc);
  let gwProc = await startGateway(dir, upstream.url, { logLevel: 'warn', name: 'gateway', cpu: sutCpu });
  const bare: Target = { name: 'bare', url: bareProc.url, pid: bareProc.pid, cpu: sutCpu };
  const gateway: Target = { name: 'gateway', url: gwProc.url, pid: gwProc.pid, cpu: sutCpu };
  const env: BenchEnv = {
    quick,
    connections: CONNECTIONS,
    seconds: timing.seconds,
    bare,
    gateway,
    upstream,
    key: BENCH_KEY,
    dir,
    ours: () => [
      { pid: bare.pid, cpu: sutCpu },
      { pid: gateway.pid, cpu: sutCpu },
      { pid: upstream.pid, cpu: loadCpu },
      { pid: process.pid, cpu: loadCpu },
    ],
    log,
    async freshGateway(name, opts) {
      const p = await startGateway(dir, upstream.url, { logLevel: 'warn', name, cpu: sutCpu, store: opts?.store });
      const target: Target = { name: 'gateway', url: p.url, pid: p.pid, cpu: sutCpu };
      const extra = { pid: p.pid, cpu: sutCpu };
      const ours = env.ours;
      env.ours = () => [...ours(), extra];
      return {
        target,
        async stop() {
          env.ours = ours;
          await p.stop();
          procs.splice(procs.indexOf(p), 1);
        },
      };
    },
  };

  if (args.profile) {
    await profileRun({
      env,
      scenarios: scenarios.filter((s): s is HttpScenario => s.kind === 'http'),
      outDir,
      timing,
      startGateway: (name, profileDir) => startGateway(dir, upstream.url, { logLevel: args['log-level'] ?? 'warn', name, cpu: env.gateway.cpu, profileDir }),
      async stopGateway(p) {
        await p.stop();
        procs.splice(procs.indexOf(p), 1);
      },
      log,
    });
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
    return 0;
  }

  const rows: Row[] = [];
  let harnessErrors = 0;
  for (const sc of scenarios) {
    if (!gwProc.alive()) {
      log(`the gateway died; restarting it (log: ${gwProc.logFile})`);
      gwProc = await startGateway(dir, upstream.url, { logLevel: 'warn', name: `gateway-${Date.now()}`, cpu: sutCpu });
      gateway.url = gwProc.url;
      gateway.pid = gwProc.pid;
    }
    log(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${sc.name}: ${sc.title}`);
    try {
      rows.push(...(sc.kind === 'http' ? await runHttp(env, sc, [bare, gateway], timing) : await sc.run(env)));
    } catch (err) {
      harnessErrors++;
      log(`  ${sc.name}: ERROR ${(err as Error).stack ?? String(err)}`);
      rows.push({ scenario: sc.name, target: '—', notes: [], skipped: `harness error: ${(err as Error).message}` });
    }
  }

  // the same main scenarios with one summary log line per request (logLevel info)
  const mains = scenarios.filter((s): s is HttpScenario => s.kind === 'http' && s.main === true);
  if (!args['no-info'] && mains.length > 0) {
    const info = await startGateway(dir, upstream.url, { logLevel: 'info', name: 'gateway-info', cpu: sutCpu });
    const infoTarget: Target = { name: 'gateway', url: info.url, pid: info.pid, cpu: sutCpu };
    const ours = env.ours;
    env.ours = () => [...ours(), { pid: info.pid, cpu: sutCpu }];
    for (const sc of mains) {
      log(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${sc.name} with logLevel info`);
      const bareRow = rows.find((r) => r.scenario === sc.name && r.target === 'bare' && !r.skipped);
      const [row] = await runHttp(env, sc, [infoTarget], timing, bareRow);
      if (!row) continue;
      row.target = 'gateway, log info';
      const at = rows.findIndex((r) => r.scenario === sc.name && r.target === 'gateway');
      rows.splice(at >= 0 ? at + 1 : rows.length, 0, row);
    }
  }

  await stopAll();
  const billing = billingCheck(join(dir, 'gateway.db'));
  const minutes = (Date.now() - started) / 60000;
  const table = markdownTable(rows);
  const targets = formatTargets(checkTargets(rows, scenarios.filter(isJudged).map((s) => s.name)));
  const footer = [
    billing,
    `connections ${CONNECTIONS} (a row named \`…@N\` runs at N); throughput: ${timing.seconds}s per target after ${timing.warm}s warm-up, in ${timing.rounds} alternating round(s), the best reported; "added" = gateway − bare in a paced run (${timing.paced}s at 30% of the slower target's req/s, at most ${timing.pace}/s, ${CONNECTIONS} connections); conc-1 = whole answer and TTFT = first text delta, one request at a time (up to ${timing.ttftN} requests a target, the targets interleaved request by request), gateway − bare in "added"; noise = other load on CPU0/CPU1 during the best round (%)`,
    `run took ${minutes.toFixed(1)} min`,
  ];
  const report = [...header, '', table, '', ...footer, '', 'Targets (reported, never asserted):', targets].join('\n');
  process.stdout.write(`\n${report}\n`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const base = join(outDir, `${quick ? 'quick' : 'full'}-${stamp}`);
  writeFileSync(`${base}.md`, `${report}\n`);
  writeFileSync(`${base}.json`, JSON.stringify({ quick, timing, connections: CONNECTIONS, header, rows, billing }, null, 2));
  log(`\nresults: ${base}.md and .json`);
  if (args.keep) log(`kept: ${dir} (configs, logs, stores)`);
  else rmSync(dir, { recursive: true, force: true });
  if (harnessErrors > 0) log(`${harnessErrors} scenario(s) broke the harness (see ERROR above)`);
  return harnessErrors > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    process.stderr.write(`bench: harness failure: ${(err as Error)?.stack ?? String(err)}\n`);
    await stopAll();
    process.exit(1);
  },
);
