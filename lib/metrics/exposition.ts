// The Prometheus text exposition format (version 0.0.4): per family a `# HELP` and a `# TYPE` line,
// then its samples; a histogram's buckets are cumulative, end with `le="+Inf"` (equal to `_count`),
// and are followed by `_sum` and `_count`. Written only when /metrics is scraped.
import type { LabelValues, Series } from './series.js';

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function labelText(names: readonly string[], values: LabelValues, extra?: string): string {
  const parts = names.map((n, i) => `${n}="${escapeLabel(values[i]!)}"`);
  if (extra !== undefined) parts.push(extra);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function num(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return Number.isNaN(v) ? 'NaN' : String(v);
}

export function exposition(series: readonly Series[]): string {
  const out: string[] = [];
  for (const s of series) {
    out.push(`# HELP ${s.name} ${escapeHelp(s.help)}`, `# TYPE ${s.name} ${s.type}`);
    if (s.type === 'gauge') {
      out.push(`${s.name} ${num(s.read())}`);
    } else if (s.type === 'counter') {
      for (const [values, cell] of s.cells()) out.push(`${s.name}${labelText(s.labels, values)} ${num(cell.value / s.scale)}`);
    } else {
      for (const [values, cell] of s.cells()) {
        let cumulative = 0;
        s.bounds.forEach((bound, i) => {
          cumulative += cell.counts[i]!;
          out.push(`${s.name}_bucket${labelText(s.labels, values, `le="${num(bound)}"`)} ${cumulative}`);
        });
        out.push(`${s.name}_bucket${labelText(s.labels, values, 'le="+Inf"')} ${cell.count}`);
        out.push(`${s.name}_sum${labelText(s.labels, values)} ${num(cell.sum)}`);
        out.push(`${s.name}_count${labelText(s.labels, values)} ${cell.count}`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}
