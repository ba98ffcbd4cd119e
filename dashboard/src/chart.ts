// A stacked bar chart as inline SVG: one bar a day, one segment a series. Colours come from the
// style sheet (classes s0…s6), so the strict CSP (no inline style) holds; each segment has a
// <title> the browser shows on hover, and the chart carries an aria-label summing it up (the table
// beside it gives the same figures to a screen reader).
const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 760;
const HEIGHT = 240;
const LEFT = 70;
const RIGHT = 10;
const TOP = 12;
const BOTTOM = 26;
const TICKS = 4;

export interface Series {
  name: string;
  /** one value a day, in the order of `days` */
  values: number[];
}

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `max / TICKS`, times TICKS: an axis top with round ticks. */
function niceTop(max: number): number {
  if (max <= 0) return 1;
  const raw = max / TICKS;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  return step * TICKS;
}

export function stackedBars(days: readonly string[], series: readonly Series[], label: string, format: (n: number) => string): SVGSVGElement {
  const totals = days.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const top = niceTop(Math.max(0, ...totals));
  const plotW = WIDTH - LEFT - RIGHT;
  const plotH = HEIGHT - TOP - BOTTOM;
  const y = (v: number): number => TOP + plotH - (v / top) * plotH;
  const svg = el('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': `${label}: ${format(totals.reduce((a, b) => a + b, 0))} over ${days.length} days`, class: 'chart' });
  svg.append(el('title', {}, label));

  for (let t = 0; t <= TICKS; t++) {
    const v = (top * t) / TICKS;
    svg.append(el('line', { x1: LEFT, x2: WIDTH - RIGHT, y1: y(v), y2: y(v), class: 'grid' }));
    svg.append(el('text', { x: LEFT - 6, y: y(v) + 4, class: 'tick', 'text-anchor': 'end' }, format(v)));
  }

  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, slot * 0.7);
  // a label every few days, so they never overlap
  const every = Math.ceil(days.length / 12);
  days.forEach((day, i) => {
    const x = LEFT + i * slot + (slot - barW) / 2;
    let base = 0;
    series.forEach((s, k) => {
      const v = s.values[i] ?? 0;
      if (v <= 0) return;
      const rect = el('rect', { x, y: y(base + v), width: barW, height: Math.max(1, y(base) - y(base + v)), class: `bar s${k % 7}` });
      rect.append(el('title', {}, `${day} · ${s.name}: ${format(v)}`));
      svg.append(rect);
      base += v;
    });
    if (i % every === 0) svg.append(el('text', { x: x + barW / 2, y: HEIGHT - 8, class: 'tick', 'text-anchor': 'middle' }, day.slice(5)));
  });
  svg.append(el('line', { x1: LEFT, x2: WIDTH - RIGHT, y1: y(0), y2: y(0), class: 'axis' }));
  return svg;
}

/** The legend, as an HTML list under the chart: one swatch (same class as its bars) a series. */
export function legend(series: readonly Series[]): HTMLUListElement {
  const ul = document.createElement('ul');
  ul.className = 'legend';
  series.forEach((s, k) => {
    const li = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = `swatch s${k % 7}`;
    swatch.setAttribute('aria-hidden', 'true');
    li.append(swatch, s.name);
    ul.append(li);
  });
  return ul;
}
