// The one table a run prints (Markdown, so it pastes into the README), and the target check.
import type { Row } from './scenario.js';

const f = (v: number | undefined, digits = 2, sign = false): string => {
  if (v === undefined || !Number.isFinite(v)) return '—';
  const s = v.toFixed(digits);
  return sign && v >= 0 ? `+${s}` : s;
};
const int = (v: number | undefined): string => (v === undefined || !Number.isFinite(v) ? '—' : Math.round(v).toLocaleString('en-US'));

export const COLUMNS = [
  'scenario',
  'target',
  'req/s',
  '×bare',
  'p50 ms',
  'p99 ms',
  'added p50 / p99 ms (paced)',
  'conc-1 p50 ms',
  'conc-1 added ms',
  'TTFT p50 ms',
  'TTFT added ms',
  'CPU µs/req',
  'CPU ×bare',
  'CPU %',
  'peak RSS MB',
  'noise %',
  'notes',
];

export function formatRow(r: Row): string[] {
  if (r.skipped) return [r.scenario, r.target, 'skipped', '', '', '', '', '', '', '', '', '', '', '', '', '', r.skipped.replace(/\|/g, '\\|').slice(0, 200)];
  let added = '—';
  if (r.addP50 !== undefined) added = `${f(r.addP50, 2, true)} / ${f(r.addP99, 2, true)}`;
  else if (r.pacedP50 !== undefined) added = `(${f(r.pacedP50)} / ${f(r.pacedP99)})`;
  return [
    r.scenario,
    r.target,
    int(r.rps),
    r.ratio !== undefined ? f(r.ratio) : '',
    f(r.p50),
    f(r.p99),
    added,
    f(r.serialP50),
    r.addSerialP50 !== undefined ? f(r.addSerialP50, 2, true) : '',
    f(r.ttft),
    r.addTtft !== undefined ? f(r.addTtft, 2, true) : '',
    int(r.cpuUsPerReq),
    r.cpuRatio !== undefined ? f(r.cpuRatio) : '',
    r.cpuPct !== undefined ? int(r.cpuPct) : '',
    f(r.peakRssMB, 0),
    r.noise ?? '',
    r.notes.join('; ').replace(/\|/g, '\\|'),
  ];
}

export function markdownTable(rows: Row[]): string {
  const body = rows.map(formatRow);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join(' | ')} |`;
  return [line(COLUMNS), line(widths.map((w, i) => (i === widths.length - 1 ? '---' : '-'.repeat(w)))), ...body.map(line)].join('\n');
}

export interface TargetCheck {
  name: string;
  value: string;
  met: boolean | null;
}

const PORTKEY = { json: 1700, stream: 1000 };

export function checkTargets(rows: Row[], judged: string[] = []): TargetCheck[] {
  const gw = (scenario: string): Row | undefined => rows.find((r) => r.scenario === scenario && r.target === 'gateway' && !r.skipped);
  const out: TargetCheck[] = judgedTargets(rows, judged);
  const ratioCheck = (scenario: string, kind: 'json' | 'stream'): void => {
    const r = gw(scenario);
    out.push({ name: `${scenario}: ≥ 0.5× bare req/s (stretch 0.7×)`, value: r?.ratio !== undefined ? `${f(r.ratio)}×${r.ratio >= 0.7 ? ' (stretch met)' : ''}` : 'n/a', met: r?.ratio !== undefined ? r.ratio >= 0.5 : null });
    const min = 5 * PORTKEY[kind];
    out.push({ name: `${scenario}: ≥ 5× Portkey (${int(min)} req/s)`, value: r?.rps !== undefined ? `${int(r.rps)} req/s` : 'n/a', met: r?.rps !== undefined ? r.rps >= min : null });
  };
  ratioCheck('messages-json', 'json');
  ratioCheck('messages-stream', 'stream');
  for (const s of ['messages-json', 'messages-stream']) {
    const r = gw(s);
    out.push({ name: `${s}: added p50 ≤ 0.5 ms, p99 ≤ 2 ms (paced, 16 connections)`, value: r?.addP50 !== undefined ? `${f(r.addP50, 2, true)} / ${f(r.addP99, 2, true)} ms` : 'n/a', met: r?.addP50 !== undefined ? r.addP50 <= 0.5 && (r.addP99 ?? Infinity) <= 2 : null });
    out.push({ name: `${s}: added p50 ≤ 0.5 ms, p99 ≤ 2 ms (saturated, 16 connections)`, value: r?.satAddP50 !== undefined ? `${f(r.satAddP50, 2, true)} / ${f(r.satAddP99, 2, true)} ms` : 'n/a', met: r?.satAddP50 !== undefined ? r.satAddP50 <= 0.5 && (r.satAddP99 ?? Infinity) <= 2 : null });
  }
  for (const r of rows) {
    if (r.target !== 'gateway' || r.skipped || r.addTtft === undefined || r.scenario === 'slow-streams') continue;
    out.push({ name: `${r.scenario}: TTFT added ≤ 1 ms at p50`, value: `${f(r.addTtft, 2, true)} ms`, met: r.addTtft <= 1 });
  }
  const slow = gw('slow-streams');
  const slowBare = rows.find((r) => r.scenario === 'slow-streams' && r.target === 'bare' && !r.skipped);
  if (slow?.peakRssMB !== undefined && slowBare?.peakRssMB !== undefined) {
    const ratio = slow.peakRssMB / slowBare.peakRssMB;
    out.push({ name: 'slow-streams: peak RSS within 20 % of the bare proxy\'s (#21)', value: `${f(slow.peakRssMB, 0)} MB vs ${f(slowBare.peakRssMB, 0)} MB: ${f(ratio)}×`, met: ratio <= 1.2 });
  }
  if (slow) {
    const streams = (slow.extra?.streams as number | undefined) ?? 0;
    const open = (slow.extra?.maxOpen as number | undefined) ?? 0;
    out.push({ name: `slow-streams: ${streams} open streams under 150 MB RSS`, value: `${f(slow.peakRssMB, 0)} MB, ${open} of ${streams} open at once`, met: slow.peakRssMB !== undefined ? slow.peakRssMB < 150 && open >= streams : null });
  }
  const upload = rows.find((r) => r.scenario.startsWith('transcription') && r.target === 'gateway' && !r.skipped);
  const rise = upload?.extra?.rssRiseBytes as number | undefined;
  const size = upload?.extra?.uploadBytes as number | undefined;
  out.push({ name: 'transcription upload: RSS rises by less than the upload size', value: rise !== undefined && size !== undefined ? `+${f(rise / 1048576, 1)} MB for ${f(size / 1048576, 0)} MB` : 'n/a (scenario not run)', met: rise !== undefined && size !== undefined ? rise < size : null });
  return out;
}

/**
 * Issue #21's targets over its rows (same-dialect pairs, 4-turn body, 16 and 64 connections): the
 * geometric mean of ×bare ≥ 0.5 and no row below 0.35; at concurrency 1, ≤ 0.5 ms added at p50 to
 * the whole answer and to the first token; CPU per request ≤ 2× the bare proxy's (all four pairs
 * are native paths).
 */
export function judgedTargets(rows: Row[], judged: string[]): TargetCheck[] {
  if (judged.length === 0) return [];
  const gws = judged.map((s) => rows.find((r) => r.scenario === s && r.target === 'gateway' && !r.skipped));
  const measured = gws.filter((r): r is Row => r?.ratio !== undefined);
  const out: TargetCheck[] = [];
  const missing = judged.length - measured.length;
  const geo = measured.length > 0 ? Math.exp(measured.reduce((a, r) => a + Math.log(r.ratio!), 0) / measured.length) : undefined;
  out.push({ name: `#21: geometric mean of ×bare over ${judged.length} rows ≥ 0.5`, value: geo !== undefined ? `${f(geo)}×${missing > 0 ? ` (${missing} row(s) not measured)` : ''}` : 'n/a', met: geo !== undefined && missing === 0 ? geo >= 0.5 : null });
  const lowest = measured.reduce<Row | undefined>((lo, r) => (lo === undefined || r.ratio! < lo.ratio! ? r : lo), undefined);
  out.push({ name: '#21: no row below 0.35× bare', value: lowest ? `lowest ${lowest.scenario} ${f(lowest.ratio)}×` : 'n/a', met: lowest && missing === 0 ? lowest.ratio! >= 0.35 : null });
  for (const r of measured) {
    const latency = [`conc-1 ${f(r.addSerialP50, 2, true)} ms`, ...(r.addTtft !== undefined ? [`TTFT ${f(r.addTtft, 2, true)} ms`] : [])].join(', ');
    out.push({ name: `#21 ${r.scenario}: added p50 at concurrency 1 ≤ 0.5 ms (whole answer${r.addTtft !== undefined ? ' and first token' : ''})`, value: latency, met: r.addSerialP50 !== undefined ? r.addSerialP50 <= 0.5 && (r.addTtft === undefined || r.addTtft <= 0.5) : null });
    out.push({ name: `#21 ${r.scenario}: CPU per request ≤ 2× bare`, value: `${int(r.cpuUsPerReq)} µs = ${f(r.cpuRatio)}×`, met: r.cpuRatio !== undefined ? r.cpuRatio <= 2 : null });
  }
  return out;
}

export function formatTargets(checks: TargetCheck[]): string {
  return checks.map((c) => `${c.met === null ? 'n/a   ' : c.met ? 'MET   ' : 'MISSED'}  ${c.name}: ${c.value}`).join('\n');
}
