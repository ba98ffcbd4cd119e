// Benchmark: the gateway's memory while it takes large transcription uploads. Starts the simulated
// provider and bin/gateway as child processes (the provider apart, so its own buffering of the
// upload does not count; it reads every upload whole into memory, its figures are shown for
// contrast). Two gateways, one after the other, each measured from fresh:
//   1. three 20 MB uploads (accepted: spooled to disk, streamed on upstream);
//   2. three 30 MB uploads (refused at 25 MB with 400 file_too_large).
// Each gateway first gets a warm-up (see `warmUp`), then for each upload the bench prints its RSS
// after, its peak during (VmHWM from /proc/<pid>/status, reset before each upload through
// /proc/<pid>/clear_refs) and that peak's rise over the RSS just before the upload; then one
// verdict line per criterion: a 20 MB upload raises RSS by less than its size; a refused 30 MB
// upload leaves the memory flat (peak rise, and RSS after the last against `start`, under
// FLAT_MB). Figures only, nothing timed is asserted. The first upload of each gateway is the
// telling one: later ones may reuse memory a predecessor left free in the allocator.
// Run: npm run build && node dist/bench/transcription-upload.js
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CLK_TCK } from './procs.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MiB = 1024 * 1024;
const KEY = 'sk-bench-transcriptions';

interface Child {
  proc: ChildProcess;
  url: string;
}

interface Mem {
  rss: number;
  hwm: number;
}

/** "Flat" for the refused 30 MB upload: its peak RSS rise stays under this (it reads 25 MB before refusing). */
const FLAT_MB = 8;
const ROUNDS = 3;
/** the warm-up's uploads: small ones, for the upstream answers they bring (see `warmUp`) */
const WARM_UPLOADS = [64 * 1024, 64 * 1024, 64 * 1024, 64 * 1024, 64 * 1024];
const WARM_PAUSE_MS = 1000;

function start(script: string, args: string[]): Promise<Child> {
  const proc = spawn(process.execPath, [join(ROOT, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      try {
        const rec = JSON.parse(line) as { msg?: string; url?: string };
        if (rec.msg === 'listening' && rec.url) resolve({ proc, url: rec.url });
      } catch {
        /* not a JSON line */
      }
    });
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

function memory(pid: number): Mem {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** CPU time (user + system) the process used so far, in ms (/proc/<pid>/stat, in clock ticks). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/** Resets the process's peak RSS (VmHWM) to its current RSS (Linux: `5` to /proc/<pid>/clear_refs). */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `work` and measures the gateway's RSS around it: before, after, and the peak in between
 * (VmHWM, reset just before; where it cannot be reset, the highest VmRSS sampled every 2 ms).
 */
async function measured<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; before: number; after: number; peak: number }> {
  const reset = resetPeak(pid);
  const before = memory(pid).rss;
  let sampled = before;
  const timer = setInterval(() => {
    sampled = Math.max(sampled, memory(pid).rss);
  }, 2);
  try {
    const result = await work();
    const m = memory(pid);
    return { result, before, after: m.rss, peak: Math.max(reset ? m.hwm : 0, sampled, m.rss) };
  } finally {
    clearInterval(timer);
  }
}

/** Streams a multipart upload of `size` bytes of file (never held whole); stops sending once answered. */
function upload(url: string, size: number, filename: string): Promise<{ status: number; body: string }> {
  const boundary = `bench-${Date.now()}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ngpt-4o-transcribe\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: audio/mpeg\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const block = Buffer.alloc(64 * 1024, 0x5a);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(`${url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) },
    });
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!answered && err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    req.write(head);
    const pump = (): void => {
      while (!answered && sent < size) {
        const n = Math.min(block.length, size - sent);
        sent += n;
        if (!req.write(n === block.length ? block : block.subarray(0, n))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end(tail);
    };
    pump();
  });
}

interface Measured {
  size: number;
  status: string;
  before: number;
  after: number;
  peak: number;
}

interface Session {
  pid: number;
  start: number;
  uploads: Measured[];
}

const f1 = (n: number): string => n.toFixed(1).padStart(6);
const pair = (rss: number, peak: number): string => `${f1(rss)} / ${f1(peak)}`;
const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;
const mb = (n: number): string => `${signed(n)} MB`;

function row(label: string, rss: number, peak: number, rise: string, provider: string, note: string): string {
  return `${label.padEnd(36)} ${pair(rss, peak).padEnd(30)} ${rise.padStart(6).padEnd(11)} ${provider.padEnd(16)} ${note}`.trimEnd();
}

/**
 * A few small uploads, then a pause: not measured as uploads. The gateway's first upstream answers
 * make V8 compile undici's WebAssembly HTTP parser with TurboFan, in the background, once per
 * process: ~30 MB of compiler memory for ~0.2 s, freed after (`--trace-wasm-compilation-times`:
 * "wasm-function#20 using TurboFan ... 29.5 MB max"). Without the warm-up that one-off lands in
 * whichever upload is running, whatever its size.
 */
async function warmUp(url: string, pid: number): Promise<{ statuses: number[]; before: number; after: number; peak: number }> {
  const m = await measured(pid, async () => {
    const statuses: number[] = [];
    for (const size of WARM_UPLOADS) statuses.push((await upload(url, size, 'warm.mp3')).status);
    await new Promise((r) => setTimeout(r, WARM_PAUSE_MS));
    return statuses;
  });
  return { statuses: m.result, before: m.before, after: m.after, peak: m.peak };
}

async function session(configFile: string, sim: Child, size: number, filename: string, rows: string[]): Promise<Session> {
  const gw = await start('dist/bin/gateway.js', ['--config', configFile, '--port', '0']);
  const pid = gw.proc.pid!;
  const provider = (): string => {
    const m = memory(sim.proc.pid!);
    return pair(m.rss, m.hwm);
  };
  try {
    const fresh = memory(pid);
    rows.push(row(`fresh gateway (pid ${pid})`, fresh.rss, fresh.hwm, '', provider(), ''));
    const warm = await warmUp(gw.url, pid);
    rows.push(row(`warm-up: ${WARM_UPLOADS.length} × 64 KB upload → ${[...new Set(warm.statuses)].join(', ')}`, warm.after, warm.peak, signed(warm.peak - warm.before), provider(), `(one-off JIT, then ${WARM_PAUSE_MS} ms idle)`));
    const startRss = memory(pid).rss;
    rows.push(row('start', startRss, startRss, '', provider(), ''));
    const uploads: Measured[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const t0 = performance.now();
      const cpu0 = cpuMs(pid);
      const m = await measured(pid, () => upload(gw.url, size, filename));
      const ms = performance.now() - t0;
      const cpu = cpuMs(pid) - cpu0;
      const res = m.result;
      const status = res.status === 200 ? '200' : `${res.status} ${(JSON.parse(res.body) as { error: { code: string } }).error.code}`;
      uploads.push({ size, status, before: m.before, after: m.after, peak: m.peak });
      rows.push(row(`#${round} ${size / MiB} MB upload → ${status}`, m.after, m.peak, signed(m.peak - m.before), provider(), `(${ms.toFixed(0)} ms, gateway CPU ${cpu} ms)`));
    }
    return { pid, start: startRss, uploads };
  } finally {
    gw.proc.kill('SIGTERM');
    await new Promise((r) => gw.proc.once('exit', r));
  }
}

function verdicts(twenty: Session, thirty: Session): string[] {
  const worstRise = (s: Session): number => Math.max(...s.uploads.map((u) => u.peak - u.before));
  const each = (s: Session): string => s.uploads.map((u) => mb(u.peak - u.before)).join(', ');
  const first = twenty.uploads[0]!;
  const accepted = twenty.uploads.every((u) => u.status === '200');
  const below = accepted && worstRise(twenty) < 20;
  const refused = thirty.uploads.filter((u) => u.status === '400 file_too_large').length;
  const drift = thirty.uploads[thirty.uploads.length - 1]!.after - thirty.start;
  const flat = refused === thirty.uploads.length && worstRise(thirty) < FLAT_MB && drift < FLAT_MB;
  return [
    `verdict, 20 MB upload (accepted): peak RSS rise ${mb(first.peak - first.before)} for the first, worst ${mb(worstRise(twenty))} (each: ${each(twenty)}); ` +
      `status ${twenty.uploads.map((u) => u.status).join(', ')}; less than the 20 MB uploaded: ${below ? 'met' : 'NOT met'}`,
    `verdict, 30 MB upload (refused at 25 MB): 400 file_too_large ${refused}/${thirty.uploads.length}; peak RSS rise worst ${mb(worstRise(thirty))} (each: ${each(thirty)}), ` +
      `RSS after the last vs start ${mb(drift)}; flat (both under ${FLAT_MB} MB): ${flat ? 'met' : 'NOT met'}`,
  ];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tx-'));
  const sim = await start('dist/bin/sim-provider.js', ['--port', '0']);
  const config = {
    store: 'sqlite::memory:',
    // info: the gateway's `listening` line carries its URL
    logLevel: 'info',
    providers: [{ id: 'openai', protocol: 'openai', baseUrl: `${sim.url}/v1`, apiKey: 'sk-sim', timeoutMs: 30_000 }],
    models: [{ id: 'openai/gpt-4o-transcribe', deployments: [{ provider: 'openai', model: 'gpt-4o-transcribe', api: 'transcriptions' }], pricing: { input: 2.5, output: 10 }, input: ['audio'] }],
    transcription: { defaultModel: 'openai/gpt-4o-transcribe' },
    orgs: [{ id: 'bench', credits: 1000 }],
    keys: [{ id: 'bench', key: KEY, org: 'bench' }],
  };
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(config));
  try {
    const rows: string[] = [`${''.padEnd(36)} gateway RSS after / peak (MB)  peak rise   provider RSS / peak (MB)`];
    // the 20 MB session first: its `start` line is the one bench/transcription-hook.ts reads
    const twenty = await session(configFile, sim, 20 * MiB, 'long.mp3', rows);
    const thirty = await session(configFile, sim, 30 * MiB, 'big.mp3', rows);
    process.stdout.write(
      `gateway: a fresh process for the 20 MB uploads and another for the 30 MB ones; uploads streamed over loopback; the provider runs in its own process\n` +
        `peak: the gateway's highest RSS during that upload (or the warm-up); peak rise: that peak minus its RSS just before\n` +
        `${rows.join('\n')}\n${verdicts(twenty, thirty).join('\n')}\n`,
    );
  } finally {
    sim.proc.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
