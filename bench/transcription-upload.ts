// Benchmark: the gateway's memory while it takes large transcription uploads. Starts the simulated
// provider and bin/gateway as two child processes (the provider apart, so its own buffering of the
// upload does not count), then streams a 30 MB upload (refused at 25 MB: file_too_large) and a 20 MB
// one (spooled to disk and streamed on upstream), three times each, and prints the gateway's VmRSS
// and VmHWM (peak RSS) from /proc/<pid>/status after each. For contrast it also prints the simulated
// provider's, which reads every upload whole into memory before parsing it.
// Run: npm run build && node dist/bench/transcription-upload.js
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MiB = 1024 * 1024;
const KEY = 'sk-bench-transcriptions';

interface Child {
  proc: ChildProcess;
  url: string;
}

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

function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
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
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const gw = await start('dist/bin/gateway.js', ['--config', join(dir, 'config.json'), '--port', '0']);
  const pid = gw.proc.pid!;
  try {
    const rows: string[] = [];
    const fmt = (m: { rss: number; hwm: number }): string => `${m.rss.toFixed(1).padStart(6)} / ${m.hwm.toFixed(1).padStart(6)}`;
    rows.push(`${''.padEnd(36)} gateway RSS / peak (MB)   provider RSS / peak (MB)`);
    rows.push(`${'start'.padEnd(36)} ${fmt(memory(pid)).padEnd(25)} ${fmt(memory(sim.proc.pid!))}`);
    for (let round = 1; round <= 3; round++) {
      for (const [label, size, name] of [
        // the 20 MB upload first: round 1 measures it on a fresh gateway, before any refused upload
        ['20 MB upload', 20 * MiB, 'long.mp3'],
        ['30 MB upload', 30 * MiB, 'big.mp3'],
      ] as const) {
        const t0 = performance.now();
        const res = await upload(gw.url, size, name);
        const ms = performance.now() - t0;
        const code = res.status === 200 ? '200' : `${res.status} ${(JSON.parse(res.body) as { error: { code: string } }).error.code}`;
        rows.push(`${`#${round} ${label} → ${code}`.padEnd(36)} ${fmt(memory(pid)).padEnd(25)} ${fmt(memory(sim.proc.pid!)).padEnd(16)} (${ms.toFixed(0)} ms)`);
      }
    }
    process.stdout.write(`gateway pid ${pid}, uploads streamed over loopback; the provider runs in its own process\n${rows.join('\n')}\n`);
  } finally {
    gw.proc.kill('SIGTERM');
    sim.proc.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
