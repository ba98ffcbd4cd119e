// Closed-loop load with wrk (C, one thread) when it is installed: at 64 connections autocannon
// (JavaScript) needs most of CPU 1 for itself, which it shares with the bench upstream, so the bare
// proxy would be measured against the load generator's limit rather than its own. wrk reports its
// figures from a Lua `done()` hook as one JSON line; latencies are wrk's (µs, HdrHistogram).
// `--loadgen autocannon` in the runner turns it off; phases shorter than a second (wrk counts whole
// seconds) and paced phases always use autocannon.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpRequestSpec } from './scenario.js';

export interface WrkResult {
  requests: number;
  /** responses with a status outside 2xx/3xx */
  statusErrors: number;
  timeouts: number;
  seconds: number;
  p50: number;
  p90: number;
  p99: number;
}

let wanted: 'wrk' | 'autocannon' = 'wrk';
let installed: boolean | undefined;

export function useLoadGenerator(name: string): void {
  wanted = name === 'autocannon' ? 'autocannon' : 'wrk';
}

/** Whether a closed-loop phase of `seconds` runs on wrk. */
export function wrkFor(seconds: number): boolean {
  if (wanted !== 'wrk' || seconds < 1) return false;
  installed ??= spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
  return installed;
}

export function loadGeneratorName(): string {
  return wanted === 'wrk' && wrkFor(1) ? 'wrk (1 thread)' : 'autocannon';
}

const lua = (s: string): string => JSON.stringify(s); // header names and values are ASCII

function script(spec: HttpRequestSpec, bodyFile: string): string {
  const headers = Object.entries(spec.headers).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`);
  return [
    'wrk.method = "POST"',
    `local f = assert(io.open(${lua(bodyFile)}, "rb"))`,
    'wrk.body = f:read("*a")',
    'f:close()',
    ...headers,
    'done = function(summary, latency, requests)',
    '  io.write(string.format(\'WRKJSON {"requests":%d,"us":%d,"status":%d,"timeout":%d,"p50":%.1f,"p90":%.1f,"p99":%.1f}\\n\',',
    '    summary.requests, summary.duration, summary.errors.status, summary.errors.timeout,',
    '    latency:percentile(50), latency:percentile(90), latency:percentile(99)))',
    'end',
  ].join('\n');
}

export function runWrk(baseUrl: string, spec: HttpRequestSpec, o: { connections: number; seconds: number }): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  const bodyFile = join(dir, 'body');
  writeFileSync(bodyFile, spec.body);
  writeFileSync(join(dir, 'post.lua'), script(spec, bodyFile));
  const args = ['-t1', `-c${o.connections}`, `-d${Math.round(o.seconds)}s`, '--timeout', '30s', '-s', join(dir, 'post.lua'), baseUrl + spec.path];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('close', () => {
      rmSync(dir, { recursive: true, force: true });
      const line = out.split('\n').find((l) => l.startsWith('WRKJSON '));
      if (!line) return reject(new Error(`wrk gave no figures: ${out.slice(-400)}`));
      const v = JSON.parse(line.slice(8)) as { requests: number; us: number; status: number; timeout: number; p50: number; p90: number; p99: number };
      resolve({ requests: v.requests, statusErrors: v.status, timeouts: v.timeout, seconds: v.us / 1e6, p50: v.p50 / 1000, p90: v.p90 / 1000, p99: v.p99 / 1000 });
    });
  });
}
