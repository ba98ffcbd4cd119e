// Resident memory of a process by kind of mapping (from /proc/PID/smaps), for the memory diagnostics
// (stream-heap.ts, start-heap.ts).
import { readFileSync } from 'node:fs';

/** resident KB by kind of mapping: the malloc heap, anonymous mappings by size, files */
export function mapsSummary(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  let kind = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = (parseInt(head[2]!, 16) - parseInt(head[1]!, 16)) / 1024;
      const name = head[3]!;
      kind = name === '[heap]' ? 'brk heap' : name.startsWith('/') ? 'files' : name === '' ? (size >= 60 * 1024 ? 'anon ≥60MB (malloc arenas, code range)' : size === 256 ? 'anon 256KB (V8 pages)' : 'anon other') : name;
      continue;
    }
    const rssLine = /^Rss:\s+(\d+) kB/.exec(line);
    if (rssLine) out[kind] = (out[kind] ?? 0) + Number(rssLine[1]);
  }
  return out;
}
