// Spend over time by project, key or model: a stacked bar a day (the top groups, the rest as
// "other") and a table of each group's totals over the range, from GET /admin/v1/usage.
// The API sums one dimension at a time: the groups first (group_by=project|key|model), then each
// top group's days (group_by=day filtered to it), then every day's total for "other".
import { api } from './api.js';
import { legend, stackedBars, type Series } from './chart.js';
import { byId, count, fillRows, h, usd } from './dom.js';
import type { GroupBy, Usage, UsageRow } from './types.js';

/** how many groups get their own colour; the rest are summed as "other" */
const TOP_GROUPS = 6;
const DAY_MS = 86_400_000;

export interface SpendQuery {
  by: Extract<GroupBy, 'project' | 'key' | 'model'>;
  days: number;
  org: string;
}

/** The UTC dates of the range, oldest first, and the exclusive end date the API takes as `to`. */
function range(days: number, now = Date.now()): { days: string[]; from: string; to: string } {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const list = Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
  return { days: list, from: list[0]!, to: new Date(today + DAY_MS).toISOString().slice(0, 10) };
}

/** One value a day from a group_by=day answer (a group may be a date or a datetime). */
function perDay(days: readonly string[], usage: Usage): number[] {
  const byDay = new Map(usage.data.map((r) => [(r.group ?? '').slice(0, 10), r.usd]));
  return days.map((d) => byDay.get(d) ?? 0);
}

function totalsRow(r: UsageRow, by: string): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-group': r.group ?? '' },
    h('th', { scope: 'row' }, r.group === null ? `(no ${by})` : h('code', {}, r.group)),
    h('td', { class: 'num' }, count(r.requests)),
    h('td', { class: 'num' }, count(r.inputTokens)),
    h('td', { class: 'num' }, count(r.outputTokens)),
    h('td', { class: 'num' }, count(r.cacheReadTokens + r.cacheWriteTokens)),
    h('td', { class: 'num', 'data-col': 'usd' }, usd(r.usd)),
  );
}

export async function loadSpend(q: SpendQuery): Promise<void> {
  const { days, from, to } = range(q.days);
  const base = { from, to, org: q.org };
  const groups = await api.get<Usage>('usage', { ...base, group_by: q.by });
  // requests without a group (no project) cannot be filtered to: they fall in "other"
  const top = groups.data.filter((g): g is UsageRow & { group: string } => g.group !== null && g.usd > 0).sort((a, b) => b.usd - a.usd).slice(0, TOP_GROUPS);
  const [all, ...each] = await Promise.all([
    api.get<Usage>('usage', { ...base, group_by: 'day' }),
    ...top.map((g) => api.get<Usage>('usage', { ...base, group_by: 'day', [q.by]: g.group })),
  ]);
  const series: Series[] = top.map((g, i) => ({ name: g.group, values: perDay(days, each[i]!) }));
  const allDays = perDay(days, all!);
  const other = allDays.map((v, i) => Math.max(0, v - series.reduce((s, x) => s + x.values[i]!, 0)));
  // differences of sums in floating point: below half a nano-dollar (the ledger's unit) is rounding
  if (other.some((v) => v >= 5e-10)) series.push({ name: top.length < groups.data.length ? 'other' : `(no ${q.by})`, values: other });

  const chart = byId('spend-chart');
  const label = `Spend per day by ${q.by}`;
  chart.replaceChildren(series.length > 0 ? stackedBars(days, series, label, usd) : h('p', { class: 'empty' }, 'No spend in this range.'), legend(series));
  fillRows(byId<HTMLTableSectionElement>('spend-rows'), groups.data.map((r) => totalsRow(r, q.by)), 'No requests in this range.');
  byId('spend-group-head').textContent = q.by === 'key' ? 'Key' : q.by === 'model' ? 'Model' : 'Project';
  const t = groups.total;
  byId('spend-total').replaceChildren(
    h('th', { scope: 'row' }, 'Total'),
    h('td', { class: 'num' }, count(t.requests)),
    h('td', { class: 'num' }, count(t.inputTokens)),
    h('td', { class: 'num' }, count(t.outputTokens)),
    h('td', { class: 'num' }, count(t.cacheReadTokens + t.cacheWriteTokens)),
    h('td', { class: 'num', 'data-col': 'usd' }, usd(t.usd)),
  );
}
