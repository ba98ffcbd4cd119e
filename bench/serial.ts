// One request at a time (concurrency 1): time to first byte, to first token and to the whole answer.
// Several targets are measured interleaved, request by request (a b, then b a, …), so that a slow
// stretch of this shared machine (a wake-up that takes milliseconds, another process's burst) falls
// on every target alike: measured one after the other, the bare proxy's own TTFT p50 moved between
// 0.7 and 3.1 ms from one row to the next of a run (sessions 14 and 16), more than the 0.5 ms the
// gateway may add.
import { Pool } from 'undici';
import { hasToken, percentile } from './load.js';
import type { HttpRequestSpec } from './scenario.js';

export interface TtftResult {
  /** request sent → first body byte */
  firstByte: { p50: number; p99: number };
  /** request sent → first chunk that carries generated text */
  firstToken: { p50: number; p99: number };
  total: { p50: number; p99: number };
  n: number;
  failed: number;
}

interface Samples {
  fb: number[];
  ft: number[];
  tot: number[];
  failed: number;
}

/** One request on `pool`, its times added to `s` (a failure counted instead). */
async function timeOne(pool: Pool, spec: HttpRequestSpec, stream: boolean, s: Samples): Promise<void> {
  const t0 = performance.now();
  const res = await pool.request({ path: spec.path, method: 'POST', headers: spec.headers, body: spec.body, headersTimeout: 30_000, bodyTimeout: 30_000 });
  let first = 0;
  let token = 0;
  let carry = '';
  for await (const chunk of res.body) {
    const now = performance.now();
    if (first === 0) first = now;
    if (token === 0 && !stream) token = now;
    if (token === 0) {
      const text = carry + (chunk as Buffer).toString('latin1');
      if (hasToken(text)) token = now;
      else carry = text.slice(-64);
    }
  }
  const end = performance.now();
  if (res.statusCode !== 200 || token === 0) {
    s.failed++;
    return;
  }
  s.fb.push(first - t0);
  s.ft.push(token - t0);
  s.tot.push(end - t0);
}

const q = (a: number[]): { p50: number; p99: number } => {
  const s = a.sort((x, y) => x - y);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};

/**
 * `n` requests to each of `baseUrls`, one at a time (for at most `maxMs` in all), interleaved: in
 * each round every target answers one, in turn, the order reversed every other round. `stream:
 * false`: a JSON answer, whose first byte counts as its first token. `gapMs`: a pause before each
 * round (requests to a target that sat idle). One result per target.
 */
export async function measureSerial(baseUrls: string[], spec: HttpRequestSpec, n: number, maxMs: number, stream = true, gapMs = 0): Promise<TtftResult[]> {
  const pools = baseUrls.map((u) => new Pool(new URL(u).origin, { connections: 1, pipelining: 1 }));
  const samples: Samples[] = baseUrls.map(() => ({ fb: [], ft: [], tot: [], failed: 0 }));
  const until = performance.now() + maxMs;
  try {
    for (let i = 0; i < n && performance.now() < until; i++) {
      if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      for (let k = 0; k < pools.length; k++) {
        const at = i % 2 === 0 ? k : pools.length - 1 - k;
        await timeOne(pools[at]!, spec, stream, samples[at]!);
      }
    }
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  return samples.map((s) => ({ firstByte: q(s.fb), firstToken: q(s.ft), total: q(s.tot), n: s.tot.length, failed: s.failed }));
}
