// Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time,
// self time by module (package or project file), and inclusive time by project file (which stage or
// library a request's CPU goes to).
// Run: node dist/bench/profile-summary.js FILE.cpuprofile [--top 25] [--skip-ms 0]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface Entry {
  name: string;
  ms: number;
  pct: number;
  /** the heaviest caller chain (nearest first), for the top self-time functions */
  via?: string;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  busyMs: number;
  topFunctions: Entry[];
  byModule: Entry[];
  inclusiveByFile: Entry[];
}

/** node_modules/<pkg>, the project file (dist/... → its source path), node:internal, or a (special) node */
export function moduleOf(url: string, fn: string): string {
  if (url === '') return fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return `npm:${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  if (url.startsWith('node:')) return url.startsWith('node:internal/') ? `node:${url.slice(14).split('/')[0]}` : url;
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 6).replace(/\.js$/, '.ts');
  return url.replace(/^file:\/\//, '');
}

function label(cf: CallFrame): string {
  const where = moduleOf(cf.url, cf.functionName);
  const fn = cf.functionName || '(anonymous)';
  return cf.url === '' ? fn : `${fn}  ${where}:${cf.lineNumber + 1}`;
}

/**
 * `skipMs`: leave out the first milliseconds of the profile (start-up, warm-up); `tailMs`: and its
 * last ones (shutdown: the store's closing checkpoint alone was 1.5-2.8 % of a JSON row's profile,
 * work the row's CPU per request, measured during the load, does not hold).
 */
export function summarise(profile: CpuProfile, top = 25, skipMs = 0, tailMs = 0): ProfileSummary {
  const untilMs = (profile.endTime - profile.startTime) / 1000 - tailMs;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  // self time per node: each sample's following time delta (the V8/DevTools convention)
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  if (samples.length > 0 && deltas.length === samples.length) {
    let at = 0;
    for (let i = 0; i < samples.length; i++) {
      at += deltas[i]! / 1000;
      if (at < skipMs || at > untilMs) continue;
      const dt = (i + 1 < deltas.length ? deltas[i + 1]! : 0) / 1000;
      self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + dt);
    }
  } else {
    const per = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.nodes.reduce((a, n) => a + (n.hitCount ?? 0), 0));
    for (const n of profile.nodes) self.set(n.id, (n.hitCount ?? 0) * per);
  }
  let total = 0;
  let idle = 0;
  const fnSelf = new Map<string, number>();
  const modSelf = new Map<string, number>();
  const fileIncl = new Map<string, number>();
  const callers = new Map<string, Map<string, number>>();
  for (const [id, ms] of self) {
    if (ms === 0) continue;
    const n = byId.get(id)!;
    total += ms;
    if (n.callFrame.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const key = label(n.callFrame);
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + ms);
    const chain: string[] = [];
    for (let cur = parent.get(id); cur !== undefined && chain.length < 3; cur = parent.get(cur)) {
      const cf = byId.get(cur)!.callFrame;
      if (cf.url !== '' || cf.functionName !== '(root)') chain.push(`${cf.functionName || '(anonymous)'} ${moduleOf(cf.url, cf.functionName)}:${cf.lineNumber + 1}`);
    }
    const byChain = callers.get(key) ?? new Map<string, number>();
    const chainKey = chain.join(' ← ');
    byChain.set(chainKey, (byChain.get(chainKey) ?? 0) + ms);
    callers.set(key, byChain);
    const mod = moduleOf(n.callFrame.url, n.callFrame.functionName);
    modSelf.set(mod, (modSelf.get(mod) ?? 0) + ms);
    // inclusive: every distinct module on the stack gets this sample once
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const cf = byId.get(cur)!.callFrame;
      if (cf.url === '') continue;
      const m = moduleOf(cf.url, cf.functionName);
      if (seen.has(m)) continue;
      seen.add(m);
      fileIncl.set(m, (fileIncl.get(m) ?? 0) + ms);
    }
  }
  const busy = total - idle;
  const rank = (m: Map<string, number>, k: number): Entry[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, ms]) => ({ name, ms, pct: (100 * ms) / Math.max(busy, 1e-9) }));
  const topFunctions = rank(fnSelf, top);
  for (const e of topFunctions.slice(0, 12)) {
    const best = [...(callers.get(e.name) ?? [])].sort((a, b) => b[1] - a[1])[0];
    if (best && best[0] !== '') e.via = best[0];
  }
  return { totalMs: total, idleMs: idle, busyMs: busy, topFunctions, byModule: rank(modSelf, 20), inclusiveByFile: rank(fileIncl, top) };
}

export function formatSummary(s: ProfileSummary, title: string): string {
  const lines = [`# ${title}`, `profile ${s.totalMs.toFixed(0)} ms, idle ${s.idleMs.toFixed(0)} ms, busy ${s.busyMs.toFixed(0)} ms (percentages are of busy time)`, '', 'Top self time:'];
  for (const e of s.topFunctions) {
    lines.push(`  ${e.pct.toFixed(1).padStart(5)}%  ${e.ms.toFixed(0).padStart(6)} ms  ${e.name}`);
    if (e.via) lines.push(`                          ← ${e.via}`);
  }
  lines.push('', 'Self time by module:');
  for (const e of s.byModule) lines.push(`  ${e.pct.toFixed(1).padStart(5)}%  ${e.name}`);
  lines.push('', 'Inclusive time by module (on the stack):');
  for (const e of s.inclusiveByFile) lines.push(`  ${e.pct.toFixed(1).padStart(5)}%  ${e.name}`);
  return lines.join('\n');
}

export function summariseFile(file: string, top = 25, skipMs = 0, tailMs = 0): ProfileSummary {
  return summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top, skipMs, tailMs);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const ti = args.indexOf('--top');
  const top = ti >= 0 ? Number(args[ti + 1]) : 25;
  const si = args.indexOf('--skip-ms');
  const skipMs = si >= 0 ? Number(args[si + 1]) : 0;
  const ti2 = args.indexOf('--tail-ms');
  const tailMs = ti2 >= 0 ? Number(args[ti2 + 1]) : 0;
  const files = args.filter((a, i) => !a.startsWith('--') && !['--top', '--skip-ms', '--tail-ms'].includes(args[i - 1]!));
  if (files.length === 0) {
    process.stderr.write('usage: profile-summary FILE.cpuprofile [--top 25] [--skip-ms MS] [--tail-ms MS]\n');
    process.exit(2);
  }
  for (const f of files) process.stdout.write(`${formatSummary(summariseFile(f, top, skipMs, tailMs), f)}\n\n`);
}
