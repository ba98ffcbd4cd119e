// Is the machine quiet? Per-CPU busy time from /proc/stat, compared with the CPU time of the
// processes this benchmark runs: what is left is other load (other test runs, builds), which makes
// a run's figures unreliable. Checked once before the run and measured during every load phase.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { CLK_TCK, cpuSeconds } from './procs.js';

/** per CPU: [busy seconds (user+nice+system), total seconds] */
export type CpuTimes = Map<number, [number, number]>;

export function cpuTimes(): CpuTimes {
  const out: CpuTimes = new Map();
  try {
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      const m = /^cpu(\d+)\s+(.*)$/.exec(line);
      if (!m) continue;
      const f = m[2]!.trim().split(/\s+/).map(Number);
      const busy = (f[0]! + f[1]! + f[2]!) / CLK_TCK;
      const total = f.slice(0, 8).reduce((a, b) => a + b, 0) / CLK_TCK;
      out.set(Number(m[1]), [busy, total]);
    }
  } catch {
    // not Linux: nothing to compare
  }
  return out;
}

export interface NoiseSample {
  /** CPU busy with work not ours, in % of that CPU, per CPU index */
  foreign: Map<number, number>;
  /** busy % of each CPU in all */
  busy: Map<number, number>;
}

/**
 * Starts measuring; `end()` tells, per CPU, how busy it was and how much of that was not the
 * given processes (each with the CPU it is pinned to; an unpinned process counts on no CPU).
 */
export function noiseMeter(procs: { pid: number; cpu: number | null }[]): { end(): NoiseSample } {
  const t0 = cpuTimes();
  const p0 = procs.map((p) => cpuSeconds(p.pid));
  return {
    end() {
      const t1 = cpuTimes();
      const ours = new Map<number, number>();
      procs.forEach((p, i) => {
        if (p.cpu === null) return;
        const d = cpuSeconds(p.pid) - p0[i]!;
        if (Number.isFinite(d)) ours.set(p.cpu, (ours.get(p.cpu) ?? 0) + d);
      });
      const foreign = new Map<number, number>();
      const busy = new Map<number, number>();
      for (const [cpu, [b1, tot1]] of t1) {
        const [b0, tot0] = t0.get(cpu) ?? [b1, tot1];
        const wall = tot1 - tot0;
        if (wall <= 0) continue;
        busy.set(cpu, (100 * (b1 - b0)) / wall);
        foreign.set(cpu, Math.max(0, (100 * (b1 - b0 - (ours.get(cpu) ?? 0))) / wall));
      }
      return { foreign, busy };
    },
  };
}

export interface QuietReport {
  loadavg: number[];
  busy: Map<number, number>;
  quiet: boolean;
  lines: string[];
}

/** Samples the idle machine for `ms`: any CPU above 10 % busy is noise (the load average lags by minutes, so it is only shown). */
export async function quietCheck(ms: number): Promise<QuietReport> {
  const meter = noiseMeter([]);
  await new Promise((r) => setTimeout(r, ms));
  const { busy } = meter.end();
  const la = loadavg();
  const lines: string[] = [];
  const busyText = [...busy].map(([cpu, pct]) => `cpu${cpu} ${pct.toFixed(0)}%`).join(', ');
  const noisy = [...busy.values()].some((v) => v > 10);
  lines.push(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}); load average ${la.map((v) => v.toFixed(2)).join(' ')}; busy before the run (${ms} ms): ${busyText || 'n/a'}`);
  if (noisy) lines.push('WARNING: the machine is not quiet (other processes use CPU): figures will be noisy and ratios less reliable; the "noise" column shows other load per CPU during each phase.');
  return { loadavg: la, busy, quiet: !noisy, lines };
}
