// The phases of an HTTP scenario, run the same way against every target: a probe request, warm-up,
// closed-loop throughput in alternating rounds (CPU, peak RSS, other load), an open-loop paced run
// (added latency) and time to first token; then the gateway's figures relative to the bare proxy's.
import { answerProblem, probe, runLoad, runPaced, type LoadResult } from './load.js';
import { cpuSeconds, peakRss, resetPeak, rssSampler } from './procs.js';
import { measureSerial } from './serial.js';
import { noiseMeter, type NoiseSample } from './quiet.js';
import type { BenchEnv, HttpScenario, Row, Target } from './scenario.js';

export interface Timing {
  warm: number;
  /** the throughput phase is split into this many rounds, alternating between the targets */
  rounds: number;
  seconds: number;
  paced: number;
  /** highest paced rate, requests/s */
  pace: number;
  ttftN: number;
  ttftMaxMs: number;
}

export function noiseText(n: NoiseSample): string {
  return [...n.foreign].map(([, v]) => v.toFixed(0)).join('/');
}

interface Measured {
  load: LoadResult;
  cpu: number;
  peak: number;
  noise: NoiseSample;
}

/** The closed-loop throughput phase, with the target's CPU time, peak RSS and the machine's other load. */
async function measureLoad(env: BenchEnv, t: Target, spec: ReturnType<HttpScenario['request']>, seconds: number, connections: number): Promise<Measured> {
  const hwm = resetPeak(t.pid);
  const sampler = rssSampler(t.pid, 200);
  const cpu0 = cpuSeconds(t.pid);
  const meter = noiseMeter(env.ours());
  const load = await runLoad(t.url, spec, { connections, seconds });
  const noise = meter.end();
  const cpu = cpuSeconds(t.pid) - cpu0;
  const sampled = sampler.stop();
  return { load, cpu, peak: hwm ? Math.max(peakRss(t.pid), sampled) : sampled, noise };
}

/** `ref`: the bare proxy's row from earlier in the run, when `targets` does not include it. */
export async function runHttp(env: BenchEnv, sc: HttpScenario, targets: Target[], timing: Timing, ref?: Row): Promise<Row[]> {
  const log = env.log;
  const spec = sc.request(env);
  const connections = sc.connections ?? env.connections;
  const rows: Row[] = [];
  const measured: { t: Target; row: Row; m: Measured }[] = [];
  // 1. closed loop at N connections: throughput, CPU, memory. The phase is split into rounds that
  // alternate between the targets; each target's best round is reported (as json-parse.ts does),
  // so that a burst of other load on the machine biases neither target.
  const live: Target[] = [];
  for (const t of targets) {
    const p = await probe(t.url, spec).catch((err: unknown) => ({ status: 0, body: String(err), ms: 0 }));
    const problem = answerProblem(p, sc.stream);
    if (problem) {
      log(`  ${sc.name} → ${t.name}: SKIPPED, the probe request failed: ${problem}`);
      rows.push({ scenario: sc.name, target: t.name, notes: [], skipped: `requests fail: ${problem}` });
      continue;
    }
    log(`  ${sc.name} → ${t.name}: warm-up ${timing.warm}s`);
    await runLoad(t.url, spec, { connections, seconds: timing.warm });
    live.push(t);
  }
  const rounds = new Map<Target, Measured[]>(live.map((t) => [t, []]));
  const perRound = timing.seconds / timing.rounds;
  for (let r = 0; r < timing.rounds; r++) {
    for (const t of live) {
      log(`  ${sc.name} → ${t.name}: load round ${r + 1}/${timing.rounds}, ${perRound.toFixed(1)}s at ${connections} connections`);
      rounds.get(t)!.push(await measureLoad(env, t, spec, perRound, connections));
    }
  }
  for (const t of live) {
    const all = rounds.get(t)!;
    const m = all.reduce((best, x) => (x.load.rps > best.load.rps ? x : best));
    const cpuPerReq = Math.min(...all.map((x) => (x.cpu * 1e6) / Math.max(1, x.load.ok)));
    const row: Row = {
      scenario: sc.name,
      target: t.name,
      rps: m.load.rps,
      p50: m.load.p50,
      p99: m.load.p99,
      cpuUsPerReq: cpuPerReq,
      cpuPct: (100 * m.cpu) / m.load.seconds,
      peakRssMB: Math.max(...all.map((x) => x.peak)) / 1048576,
      noise: noiseText(m.noise),
      notes: [],
      extra: {
        rounds: all.map((x) => ({ rps: x.load.rps, p50: x.load.p50, p99: x.load.p99, cpuSeconds: x.cpu, ok: x.load.ok, failed: x.load.failed, foreign: Object.fromEntries(x.noise.foreign) })),
        load: m.load,
      },
    };
    if (timing.rounds > 1) row.notes.push(`best of ${timing.rounds} rounds: ${all.map((x) => Math.round(x.load.rps)).join('/')} req/s`);
    rows.push(row);
    measured.push({ t, row, m });
  }
  // 2. paced, at the same rate for every target (well below the slowest one's capacity): latency
  // without queueing; then one request at a time (concurrency 1), the targets interleaved request by
  // request (serial.ts): whole-answer latency and, for a stream, time to first token
  const slowest = Math.min(...measured.map((x) => x.m.load.rps), ref?.rps ?? Infinity);
  const rate = Math.max(20, Math.min(timing.pace, Math.floor(slowest * 0.3)));
  const paced = new Map<Target, LoadResult>();
  for (const { t } of measured) {
    log(`  ${sc.name} → ${t.name}: paced ${timing.paced}s at ${rate}/s`);
    paced.set(t, await runPaced(t.url, spec, { connections, seconds: timing.paced, rate }));
  }
  log(`  ${sc.name}: concurrency 1 ×${timing.ttftN}, ${measured.map((x) => x.t.name).join(' and ')} interleaved`);
  const serials = await measureSerial(measured.map((x) => x.t.url), spec, timing.ttftN, timing.ttftMaxMs * measured.length, sc.stream);
  for (const [i, { t, row, m }] of measured.entries()) {
    const p = paced.get(t)!;
    const serial = serials[i]!;
    row.pacedP50 = p.p50;
    row.pacedP99 = p.p99;
    row.serialP50 = serial.total.p50;
    row.extra = { ...row.extra, paced: p, pacedRate: rate, serial };
    if (sc.stream) {
      row.ttft = serial.firstToken.p50;
      row.ttftP99 = serial.firstToken.p99;
    }
    const all = rounds.get(t) ?? [m];
    const failed = all.reduce((n, x) => n + x.load.failed, 0) + p.failed + serial.failed;
    if (failed > 0) row.notes.push(`${failed} failed responses ${JSON.stringify(Object.assign({}, ...all.map((x) => x.load.statuses), p.statuses))}`);
  }
  const bare = ref ?? measured.find((x) => x.t.name === 'bare')?.row;
  if (bare && !bare.skipped) {
    for (const { row } of measured) {
      if (row.target === 'bare') continue;
      compare(row, bare);
      row.notes.unshift(`saturated p50/p99 ${row.satAddP50! >= 0 ? '+' : ''}${row.satAddP50!.toFixed(2)}/${row.satAddP99! >= 0 ? '+' : ''}${row.satAddP99!.toFixed(2)} ms; paced at ${rate}/s`);
    }
  }
  return rows;
}

/** gateway figures relative to the bare proxy's in the same run */
export function compare(row: Row, bare: Row): void {
  row.ratio = row.rps! / bare.rps!;
  row.satAddP50 = row.p50! - bare.p50!;
  row.satAddP99 = row.p99! - bare.p99!;
  if (row.pacedP50 !== undefined && bare.pacedP50 !== undefined) {
    row.addP50 = row.pacedP50 - bare.pacedP50;
    row.addP99 = row.pacedP99! - bare.pacedP99!;
  }
  if (row.ttft !== undefined && bare.ttft !== undefined) row.addTtft = row.ttft - bare.ttft;
  if (row.serialP50 !== undefined && bare.serialP50 !== undefined) row.addSerialP50 = row.serialP50 - bare.serialP50;
  if (row.cpuUsPerReq !== undefined && bare.cpuUsPerReq) row.cpuRatio = row.cpuUsPerReq / bare.cpuUsPerReq;
}

