// What the reliability tier reads of the gateway process from /proc (Linux): its open descriptors
// and its resident memory, sampled while a load runs, so a test can check that descriptors come back
// and print the memory figures.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** the number of open file descriptors of process `pid` */
export function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** a `kB` field of /proc/<pid>/status (VmRSS, VmHWM), in bytes */
export function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** polls `f` every `everyMs` until it returns true or `ms` pass; resolves with its last answer */
export async function eventually(f: () => boolean, ms: number, everyMs = 100): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (f()) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** samples the peak of `f()` every `everyMs` until stopped */
export function sampler(f: () => number, everyMs = 50): { stop(): number } {
  let peak = f();
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, f());
    } catch {
      // the process may be gone: keep the peak seen
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

export const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);

/** the local and remote ports of each TCP socket (by inode) in the network namespace of `pid` */
function tcpSockets(pid: number): Map<string, { local: number; remote: number; state: string }> {
  const out = new Map<string, { local: number; remote: number; state: string }>();
  for (const file of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${file}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const port = (addr: string): number => parseInt(addr.split(':')[1]!, 16);
      out.set(f[9]!, { local: port(f[1]!), remote: port(f[2]!), state: f[3]! });
    }
  }
  return out;
}

/** the open TCP sockets of process `pid`, by its own port (`local`) or its peer's (`remote`) */
export function socketsOf(pid: number): { local: number; remote: number; state: string }[] {
  const tcp = tcpSockets(pid);
  const out: { local: number; remote: number; state: string }[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = '';
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed meanwhile
    }
    const m = /^socket:\[(\d+)\]$/.exec(target);
    const s = m ? tcp.get(m[1]!) : undefined;
    if (s) out.push(s);
  }
  return out;
}

export interface DescriptorFigures {
  /** open descriptors, not counting the pool of upstream connections */
  fds: number;
  /** idle or busy connections between the gateway and its in-process simulated provider */
  pool: number;
  /** connections of clients to the gateway */
  clients: number;
}

/**
 * The gateway's descriptors, the upstream connections apart: undici keeps idle ones for reuse for
 * about a minute, and with the simulated provider in the same process both ends are the gateway's.
 */
export function descriptorFigures(gw: { proc: { pid?: number }; url: string; simUrl: string }): DescriptorFigures {
  const pid = gw.proc.pid!;
  const gwPort = Number(new URL(gw.url).port);
  const simPort = Number(new URL(gw.simUrl).port);
  const socks = socketsOf(pid).filter((s) => s.remote !== 0); // not the listeners
  const upstream = socks.filter((s) => s.local === simPort || s.remote === simPort).length;
  return { fds: openDescriptors(pid) - upstream, pool: upstream / 2, clients: socks.filter((s) => s.local === gwPort).length };
}
