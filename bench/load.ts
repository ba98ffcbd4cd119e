// Load generation: autocannon (closed loop at N connections, or paced at a fixed rate), with every
// response's latency kept as a float (autocannon's own histogram rounds to whole milliseconds), and
// a small undici client for probes and time-to-first-token.
import { createRequire } from 'node:module';
import { Agent, Pool } from 'undici';
import type { HttpRequestSpec } from './scenario.js';
import { runWrk, wrkFor } from './wrk.js';

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
interface AutocannonInstance {
  on(event: 'response', fn: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): void;
  stop(): void;
}
type Autocannon = (opts: Record<string, unknown>, cb: (err: Error | null, result: AutocannonResult) => void) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadResult {
  /** 2xx responses per second */
  rps: number;
  ok: number;
  failed: number;
  /** status code → count, non-2xx only */
  statuses: Record<string, number>;
  p50: number;
  p90: number;
  p99: number;
  seconds: number;
}

export function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

class Samples {
  private buf = new Float64Array(1 << 16);
  n = 0;
  push(v: number): void {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = v;
  }
  sorted(): Float64Array {
    return this.buf.slice(0, this.n).sort();
  }
}

/**
 * Runs autocannon against `baseUrl + spec.path` for `seconds`: closed loop at `connections`, or at
 * `rate` requests/s in all when given (a paced run: latency without queueing).
 */
export function runLoad(baseUrl: string, spec: HttpRequestSpec, o: { connections: number; seconds: number; rate?: number; maxRequests?: number }): Promise<LoadResult> {
  if (!o.rate && !o.maxRequests && wrkFor(o.seconds)) {
    return runWrk(baseUrl, spec, o).then((w): LoadResult => {
      const statuses: Record<string, number> = w.statusErrors > 0 ? { 'non-2xx': w.statusErrors } : {};
      const ok = w.requests - w.statusErrors;
      const failed = w.statusErrors + w.timeouts;
      return { rps: ok / Math.max(w.seconds, 1e-3), ok, failed, statuses, p50: w.p50, p90: w.p90, p99: w.p99, seconds: w.seconds };
    });
  }
  return new Promise((resolve, reject) => {
    const lat = new Samples();
    let ok = 0;
    const started = performance.now();
    let firstAt = 0;
    let lastAt = 0;
    const opts: Record<string, unknown> = {
      url: baseUrl + spec.path,
      method: 'POST',
      headers: spec.headers,
      body: spec.body,
      connections: o.connections,
      pipelining: 1,
      duration: o.seconds,
      timeout: 30,
      // the float latencies below are the ones reported
      excludeErrorStats: true,
    };
    if (o.rate) opts.overallRate = o.rate;
    if (o.maxRequests) opts.amount = o.maxRequests;
    const inst = autocannon(opts, (err, result) => {
      if (err) return reject(err);
      const sorted = lat.sorted();
      const statuses: Record<string, number> = {};
      for (const [code, s] of Object.entries(result.statusCodeStats ?? {})) if (!code.startsWith('2')) statuses[code] = s.count;
      const seconds = ((lastAt || performance.now()) - (firstAt || started)) / 1000 || o.seconds;
      resolve({
        rps: ok / Math.max(seconds, 1e-3),
        ok,
        failed: result.errors + result.non2xx,
        statuses,
        p50: percentile(sorted, 50),
        p90: percentile(sorted, 90),
        p99: percentile(sorted, 99),
        seconds,
      });
    });
    inst.on('response', (_client, status, _bytes, ms) => {
      const now = performance.now();
      if (firstAt === 0) firstAt = now - ms;
      lastAt = now;
      if (status >= 200 && status < 300) {
        ok++;
        lat.push(ms);
      }
    });
  });
}

/** Does this chunk of an answer carry generated text (the first token)? */
export function hasToken(text: string): boolean {
  return text.includes('"text_delta"') || text.includes('output_text.delta') || /"content":"[^"]/.test(text);
}

export interface ProbeResult {
  status: number;
  body: string;
  ms: number;
}

/** One request, the whole answer read: to check that a path works before loading it. */
export async function probe(baseUrl: string, spec: HttpRequestSpec, dispatcher?: Agent): Promise<ProbeResult> {
  const t0 = performance.now();
  const agent = dispatcher ?? new Agent({ connections: 1 });
  try {
    const res = await agentRequest(agent, baseUrl, spec);
    const body = await res.body.text();
    return { status: res.statusCode, body, ms: performance.now() - t0 };
  } finally {
    if (!dispatcher) await agent.close();
  }
}

function agentRequest(agent: Agent | Pool, baseUrl: string, spec: HttpRequestSpec) {
  const u = new URL(spec.path, baseUrl);
  return agent.request({ origin: u.origin, path: u.pathname + u.search, method: 'POST', headers: spec.headers, body: spec.body, headersTimeout: 60_000, bodyTimeout: 60_000 });
}

/** Checks an answer is a complete success of the expected kind; returns the problem or null. */
export function answerProblem(p: ProbeResult, stream: boolean): string | null {
  if (p.status !== 200) return `HTTP ${p.status}: ${p.body.replace(/\s+/g, ' ').slice(0, 300)}`;
  if (stream) {
    if (!p.body.includes('message_stop') && !p.body.includes('[DONE]') && !p.body.includes('response.completed')) return `stream did not finish: ${p.body.slice(-300)}`;
    if (/event: error|"type":"error"|"error":\{/.test(p.body)) return `stream carried an error: ${p.body.slice(-300)}`;
    return null;
  }
  try {
    const v = JSON.parse(p.body) as Record<string, unknown>;
    if (!v.content && !v.choices && !v.output) return `unexpected JSON answer: ${p.body.slice(0, 300)}`;
  } catch {
    return `answer is not JSON: ${p.body.slice(0, 300)}`;
  }
  return null;
}

/**
 * Open-loop paced load: requests start at random (exponential) intervals averaging `rate` per
 * second, on a pool of `connections`, whatever the answers take; latency runs from each request's
 * scheduled start to the end of its answer. Unlike a closed loop, nothing queues at moderate rates,
 * so this is the latency a target adds, not its throughput restated.
 */
export async function runPaced(baseUrl: string, spec: HttpRequestSpec, o: { connections: number; seconds: number; rate: number }): Promise<LoadResult> {
  const pool = new Pool(new URL(baseUrl).origin, { connections: o.connections, pipelining: 1 });
  const lat: number[] = [];
  let failed = 0;
  const statuses: Record<string, number> = {};
  const started = performance.now();
  const end = started + o.seconds * 1000;
  const inflight = new Set<Promise<void>>();
  let next = started;
  try {
    for (let i = 0; i < o.rate * o.seconds * 2 && next < end; i++) {
      next += (-Math.log(1 - Math.random()) * 1000) / o.rate;
      const wait = next - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const t0 = next;
      const p: Promise<void> = pool
        .request({ path: spec.path, method: 'POST', headers: spec.headers, body: spec.body, headersTimeout: 30_000, bodyTimeout: 30_000 })
        .then(async (res) => {
          for await (const _chunk of res.body) {
            // read the whole answer
          }
          if (res.statusCode >= 200 && res.statusCode < 300) lat.push(performance.now() - t0);
          else {
            failed++;
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          }
        })
        .catch(() => {
          failed++;
        })
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const sorted = lat.sort((a, b) => a - b);
  return { rps: lat.length / seconds, ok: lat.length, failed, statuses, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), seconds };
}
