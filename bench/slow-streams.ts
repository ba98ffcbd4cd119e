// Scenario: 1,000 concurrent slow streams (Messages → Anthropic, 20 deltas 250 ms apart: 5 s each)
// through the bare proxy and the gateway: peak RSS in all, memory per open stream, how many streams
// are really open at once, and time to first token while they are. Quick mode: 200 streams of 1 s.
import { setMaxListeners } from 'node:events';
import { Pool, request } from 'undici';
import { CLAUDE, messagesRequest, slowClaude } from './bodies.js';
import { hasToken, percentile } from './load.js';
import { cpuSeconds, peakRss, resetPeak, rss, rssSampler } from './procs.js';
import { noiseMeter } from './quiet.js';
import type { BenchEnv, CustomScenario, Row, Target } from './scenario.js';

const MB = 1024 * 1024;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface StreamRun {
  ok: number;
  failed: number;
  firstError: string | null;
  maxOpen: number;
  ttft: number[];
  seconds: number;
  baseRss: number;
  peakRss: number;
  cpu: number;
  noise: string;
}

async function openStreams(env: BenchEnv, t: Target, n: number, deltas: number, delay: number): Promise<StreamRun> {
  const spec = messagesRequest(slowClaude(deltas, delay), true);
  const pool = new Pool(new URL(t.url).origin, { connections: n, pipelining: 1, connectTimeout: 30_000 });
  const streamMs = deltas * delay;
  // a stream queued behind a connection limit waits for whole streams: allow for n/256 rounds
  const deadline = performance.now() + streamMs * Math.ceil(n / 200 + 2) + 30_000;
  const baseRss = rss(t.pid);
  const hwmOk = resetPeak(t.pid);
  const sampler = rssSampler(t.pid, 50);
  const cpu0 = cpuSeconds(t.pid);
  const meter = noiseMeter(env.ours());
  let open = 0;
  let maxOpen = 0;
  let ok = 0;
  let failed = 0;
  let firstError: string | null = null;
  const ttft: number[] = [];
  const controller = new AbortController();
  setMaxListeners(n + 10, controller.signal); // one listener per request in flight
  const guard = setTimeout(() => controller.abort(new Error('slow-streams deadline')), Math.max(0, deadline - performance.now()));
  const started = performance.now();
  const one = async (): Promise<void> => {
    const t0 = performance.now();
    let counted = false;
    try {
      const res = await pool.request({ path: spec.path, method: 'POST', headers: spec.headers, body: spec.body, signal: controller.signal, headersTimeout: 120_000, bodyTimeout: 60_000 });
      let carry = '';
      let tokenAt = 0;
      for await (const chunk of res.body) {
        if (tokenAt === 0) {
          const text = carry + (chunk as Buffer).toString('latin1');
          if (hasToken(text)) {
            tokenAt = performance.now();
            ttft.push(tokenAt - t0);
            counted = true;
            if (++open > maxOpen) maxOpen = open;
          } else carry = text.slice(-64);
        }
      }
      if (res.statusCode === 200 && tokenAt > 0) ok++;
      else {
        failed++;
        firstError ??= `HTTP ${res.statusCode}`;
      }
    } catch (err) {
      failed++;
      firstError ??= (err as Error).message;
    } finally {
      if (counted) open--;
    }
  };
  const all: Promise<void>[] = [];
  // ramp up in batches, so the listen backlog never drops connection attempts
  for (let i = 0; i < n; i += 100) {
    for (let j = i; j < Math.min(n, i + 100); j++) all.push(one());
    await sleep(10);
  }
  await Promise.all(all);
  clearTimeout(guard);
  const seconds = (performance.now() - started) / 1000;
  const sampled = sampler.stop();
  const noise = meter.end();
  const cpu = cpuSeconds(t.pid) - cpu0;
  await pool.close();
  return {
    ok,
    failed,
    firstError,
    maxOpen,
    ttft: ttft.sort((a, b) => a - b),
    seconds,
    baseRss,
    peakRss: hwmOk ? Math.max(peakRss(t.pid), sampled) : sampled,
    cpu,
    noise: [...noise.foreign].map(([c, v]) => `${v.toFixed(0)}`).join('/'),
  };
}

/**
 * Warm a target the same way before measuring: a few streams, then a pause. Within the first few
 * hundred milliseconds of traffic V8 recompiles undici's WebAssembly HTTP parser with its optimizing
 * compiler on a background thread, a one-off that takes ~30 MB for a moment (seen in the bare proxy
 * and the gateway alike); left in, it would be counted as memory of the open streams.
 */
async function warm(t: Target): Promise<void> {
  const spec = messagesRequest(CLAUDE, true);
  for (let i = 0; i < 20; i++) {
    const res = await request(t.url + spec.path, { method: 'POST', headers: spec.headers, body: spec.body });
    await res.body.dump();
  }
  await sleep(1500);
}

export const scenario: CustomScenario = {
  kind: 'custom',
  name: 'slow-streams',
  title: '1,000 concurrent slow streams (memory; a fresh gateway process)',
  async run(env) {
    const n = env.quick ? 200 : 1000;
    const [deltas, delay] = env.quick ? [10, 100] : [20, 250];
    const rows: Row[] = [];
    // a gateway that served no load before but a short warm-up: its RSS is what a fresh process needs for these streams
    const fresh = await env.freshGateway('gateway-slow-streams');
    for (const t of [env.bare, fresh.target]) {
      env.log(`  slow-streams: ${n} streams × ${deltas} deltas ${delay} ms apart → ${t.name}`);
      let r: StreamRun;
      try {
        await warm(t);
        r = await openStreams(env, t, n, deltas, delay);
      } finally {
        if (t === fresh.target) await fresh.stop();
      }
      // every stream is in flight in the target from the start (queued or open), so memory is per stream
      const perStream = (r.peakRss - r.baseRss) / n;
      const row: Row = {
        scenario: this.name,
        target: t.name,
        rps: r.ok / r.seconds,
        ttft: percentile(r.ttft, 50),
        ttftP99: percentile(r.ttft, 99),
        cpuUsPerReq: (r.cpu * 1e6) / Math.max(1, r.ok),
        peakRssMB: r.peakRss / MB,
        noise: r.noise,
        notes: [
          `${n} streams of ${((deltas * delay) / 1000).toFixed(1)} s: ${r.ok} ok, ${r.failed} failed; at most ${r.maxOpen} open at once`,
          `RSS ${(r.baseRss / MB).toFixed(0)} → ${(r.peakRss / MB).toFixed(0)} MB (${(perStream / 1024).toFixed(0)} KB per stream in flight)`,
          `TTFT p99 ${percentile(r.ttft, 99).toFixed(0)} ms`,
        ],
        extra: { streams: n, deltas, delayMs: delay, ...r, ttft: undefined, perStreamBytes: perStream },
      };
      if (r.failed > 0) row.notes.push(`first failure: ${r.firstError}`);
      rows.push(row);
    }
    return rows;
  },
};
