// Processes under measurement: start a node script pinned to a CPU with taskset, wait for its
// `listening` JSON line, read its CPU time and memory from /proc, stop it by its pid.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';

export const CLK_TCK = ((): number => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

export function hasTaskset(): boolean {
  return spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Pins every thread of this process (and the children it starts from now on) to `cpu`. */
export function pinSelf(cpu: number): boolean {
  return spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(process.pid)], { stdio: 'ignore' }).status === 0;
}

export interface Proc {
  name: string;
  pid: number;
  child: ChildProcess;
  url: string;
  /** the file the process's stdout goes to */
  logFile: string;
  stop(): Promise<void>;
  alive(): boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A loopback port free right now (for a process whose `listening` line its log level hides). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/**
 * Starts `node [nodeArgs] script [args]` (under `taskset -c cpu` when cpu is given), stdout and
 * stderr to files, and resolves once stdout holds a JSON line with msg "listening" or, when `port`
 * is given, once that loopback port accepts connections.
 */
export async function startProc(o: { name: string; script: string; args?: string[]; nodeArgs?: string[]; cpu?: number | null; logFile: string; cwd?: string; timeoutMs?: number; port?: number }): Promise<Proc> {
  const out = openSync(o.logFile, 'w');
  const err = openSync(`${o.logFile}.err`, 'w');
  const nodeCmd = [process.execPath, ...(o.nodeArgs ?? []), o.script, ...(o.args ?? [])];
  const [cmd, ...args] = o.cpu === null || o.cpu === undefined ? nodeCmd : ['taskset', '-c', String(o.cpu), ...nodeCmd];
  const child = spawn(cmd!, args, { stdio: ['ignore', out, err], cwd: o.cwd });
  closeSync(out);
  closeSync(err);
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => {
    exited = true;
    resolve();
  }));
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  let url: string | null = null;
  while (url === null) {
    if (exited) throw new Error(`${o.name} exited before listening: ${readFileSync(`${o.logFile}.err`, 'utf8').slice(-2000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${o.name} did not print a listening line within ${o.timeoutMs ?? 30_000} ms`);
    }
    await sleep(25);
    if (o.port !== undefined) {
      if (await accepts(o.port)) url = `http://127.0.0.1:${o.port}`;
      continue;
    }
    for (const line of readFileSync(o.logFile, 'utf8').split('\n')) {
      if (!line.includes('listening')) continue;
      try {
        const rec = JSON.parse(line) as { msg?: string; url?: string };
        if (rec.msg === 'listening' && typeof rec.url === 'string') url = rec.url;
      } catch {
        // not JSON yet (partial line)
      }
    }
  }
  return {
    name: o.name,
    pid: child.pid!,
    child,
    url,
    logFile: o.logFile,
    alive: () => !exited,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const killed = await Promise.race([exit.then(() => true), sleep(10_000).then(() => false)]);
      if (!killed) {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
}

/** utime + stime of every thread of `pid`, in seconds. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name (which may contain spaces) start after the last ')'
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return NaN;
  }
}

/** utime + stime of `pid` and every process below it (a database server and its backends), in seconds. */
export function treeCpuSeconds(pid: number): number {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (p: number): boolean => {
    for (let q = p, hops = 0; q > 1 && hops < 64; q = parent.get(q) ?? 0, hops++) if (q === pid) return true;
    return false;
  };
  let total = 0;
  for (const p of parent.keys()) if (inTree(p)) total += cpuSeconds(p) || 0;
  return total;
}

function statusField(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** resident set size now, bytes */
export const rss = (pid: number): number => statusField(pid, 'VmRSS');
/** peak resident set size since start or the last resetPeak, bytes */
export const peakRss = (pid: number): number => statusField(pid, 'VmHWM');

/** Resets VmHWM to the current RSS (writing 5 to clear_refs); false when not permitted. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples RSS every `everyMs` until stopped; returns the highest value seen (a fallback for VmHWM). */
export function rssSampler(pid: number, everyMs = 100): { stop(): number } {
  let max = rss(pid);
  const t = setInterval(() => {
    const v = rss(pid);
    if (v > max) max = v;
  }, everyMs);
  return {
    stop() {
      clearInterval(t);
      const v = rss(pid);
      return Math.max(max, Number.isFinite(v) ? v : 0);
    },
  };
}

/** Runs `node script args` to completion (pinned to `cpu`), killed after `timeoutMs`; its stdout. */
export function runScript(script: string, args: string[], cpu: number | null, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const nodeCmd = [process.execPath, script, ...args];
  const [cmd, ...rest] = cpu === null ? nodeCmd : ['taskset', '-c', String(cpu), ...nodeCmd];
  return new Promise((resolve) => {
    const child = spawn(cmd!, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
