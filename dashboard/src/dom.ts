// Small DOM helpers: elements are built with textContent only (never innerHTML: ids, names and
// error messages are shown as text), the number formats every panel shares, and error display.
import { ApiError } from './api.js';

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

/** An element with attributes (`true` → present, null/false/undefined → absent) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no #${id}`);
  return el as T;
}

/** Replace a table body's rows; an empty list shows one row saying so. */
export function fillRows(tbody: HTMLTableSectionElement, rows: HTMLTableRowElement[], empty: string): void {
  const cols = tbody.closest('table')?.querySelectorAll('thead th').length ?? 1;
  tbody.replaceChildren(...(rows.length > 0 ? rows : [h('tr', {}, h('td', { colspan: cols, class: 'empty' }, empty))]));
}

/**
 * USD as the ledger keeps it (integer nano-dollars): up to nine decimals, at least two, so a
 * request's exact cost is shown ($0.000195393), not rounded away.
 */
export function usd(n: number): string {
  const fixed = n.toFixed(9).replace(/0{1,7}$/, '');
  return `${n < 0 ? '−' : ''}$${fixed.replace('-', '')}`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** An ISO time in UTC, to the second ('2026-11-26 20:41:07'); times from the API are UTC ('…Z'). */
export function when(iso: string | null): string {
  if (iso === null) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}

export function cap(n: number | null): string {
  return n === null ? 'none' : usd(n);
}

/** Show an error in a `role="alert"` region: the message, and the field it names when there is one. */
export function showError(region: HTMLElement, err: unknown): void {
  const e = err instanceof ApiError ? err : null;
  const message = e?.message ?? (err instanceof Error ? err.message : String(err));
  region.replaceChildren(h('strong', {}, e !== null && e.status > 0 ? `Error ${e.status}: ` : 'Error: '), message);
  if (e?.param) region.append(h('span', { class: 'field' }, ` (field: `, h('code', {}, e.param), ')'));
  region.hidden = false;
}

export function clearError(region: HTMLElement): void {
  region.replaceChildren();
  region.hidden = true;
}
