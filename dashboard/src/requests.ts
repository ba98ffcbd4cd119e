// Recent requests, newest first (GET /admin/v1/requests): status, tokens, cost, latency, and for
// gateway-auto the routing decision (the served model against the requested one, why, and the top
// candidates with their predicted quality and expected cost). "Load older" follows `nextBefore`;
// "Load newer" and "Follow" (every few seconds) read the rows written since with the forward cursor
// (`after=nextAfter`, oldest first, put on top), so none is skipped or shown twice however many came.
import { api } from './api.js';
import { byId, count, fillRows, h, usd, when } from './dom.js';
import type { RequestPage, RequestRecord, RoutingDecision } from './types.js';

const PAGE = 25;
/** candidates shown in a decision */
const TOP = 3;
/** how often Follow asks for newer rows */
const FOLLOW_MS = 3000;

let nextBefore: string | null = null;
/** where the rows newer than those shown start; null before the first load */
let nextAfter: string | null = null;
/** the organisation the rows shown are filtered by */
let shownOrg = '';
/** bumped by each newest-page load: a newer read begun before it is not added */
let generation = 0;
let shown: HTMLTableRowElement[] = [];
let following: ReturnType<typeof setInterval> | undefined;
/** the newer read in flight: one at a time */
let reading: Promise<void> | undefined;

function routingCell(r: RequestRecord): HTMLElement | string {
  const d: RoutingDecision | null = r.routing;
  if (d === null) return 'direct';
  return h(
    'details',
    {},
    h('summary', {}, `${d.reason} → ${d.choice}`),
    h('p', {}, `target ${d.target}, ${d.eligible} eligible${d.pinned ? `, pinned ${d.pinned}` : ''}`),
    h(
      'ol',
      { class: 'candidates' },
      ...d.candidates.slice(0, TOP).map((c) => h('li', {}, h('code', {}, c.id), ` quality ${c.quality.toFixed(3)}, expected ${usd(c.costUsd)}`)),
    ),
  );
}

function modelCell(r: RequestRecord): HTMLElement {
  const served = r.servedModel ?? '—';
  if (r.requestedModel === null || r.requestedModel === served) return h('span', {}, h('code', {}, served));
  return h('span', {}, h('code', {}, r.requestedModel), ' → ', h('code', {}, served));
}

function statusCell(r: RequestRecord): HTMLElement {
  const ok = r.status >= 200 && r.status < 300;
  return h('span', { class: ok ? 'ok' : 'bad' }, String(r.status), r.errorCode ? ` ${r.errorCode}` : '');
}

/** Today's requests by their time alone; older ones with the date. */
function timeCell(r: RequestRecord): HTMLElement {
  const full = when(r.at);
  const today = new Date().toISOString().slice(0, 10);
  return h('time', { datetime: r.at, title: full }, full.startsWith(today) ? full.slice(11) : full);
}

function row(r: RequestRecord): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-request-id': r.requestId },
    h('td', {}, timeCell(r)),
    h('th', { scope: 'row' }, h('code', { class: 'id', title: r.requestId }, r.requestId)),
    h('td', {}, statusCell(r)),
    h('td', {}, r.endpoint),
    h('td', {}, r.key === null ? '—' : h('code', { class: 'id', title: r.key }, r.key)),
    h('td', {}, modelCell(r)),
    h('td', { class: 'num' }, `${count(r.inputTokens)} / ${count(r.outputTokens)}`),
    h('td', { class: 'num', 'data-col': 'usd' }, usd(r.usd)),
    h('td', { class: 'num' }, r.latencyMs === null ? '—' : `${count(r.latencyMs)} ms`),
    h('td', {}, routingCell(r)),
  );
}

function show(): void {
  fillRows(byId<HTMLTableSectionElement>('requests-rows'), shown, 'No requests yet.');
  byId<HTMLButtonElement>('requests-more').hidden = nextBefore === null;
}

/** Load the newest page (`older`: the next older page, appended). */
export async function loadRequests(org: string, older = false): Promise<void> {
  const mine = older ? generation : ++generation;
  const page = await api.get<RequestPage>('requests', { limit: PAGE, org, before: older ? (nextBefore ?? undefined) : undefined });
  if (mine !== generation) return; // the list was reloaded meanwhile
  const rows = page.data.map(row);
  shown = older ? [...shown, ...rows] : rows;
  nextBefore = page.hasMore ? (page.nextBefore ?? null) : null;
  if (!older) {
    nextAfter = page.nextAfter ?? '0';
    shownOrg = org;
  }
  show();
  byId<HTMLButtonElement>('requests-newer').hidden = false;
}

/** The rows written since the newest shown, every page of them, put on top (newest first). */
export function loadNewer(): Promise<void> {
  reading ??= readNewer().finally(() => (reading = undefined));
  return reading;
}

async function readNewer(): Promise<void> {
  const mine = generation;
  let added = 0;
  for (let more = nextAfter !== null; more; ) {
    const page = await api.get<RequestPage>('requests', { limit: PAGE, org: shownOrg, after: nextAfter! });
    if (mine !== generation) return;
    shown = [...page.data.map(row).reverse(), ...shown];
    nextAfter = page.nextAfter;
    added += page.data.length;
    more = page.hasMore;
  }
  if (added > 0) show();
  byId('requests-status').textContent = added === 0 ? 'No newer requests.' : `${added} newer request${added === 1 ? '' : 's'}.`;
}

/** Follow on: newer rows every few seconds (`fail` gets a read that went wrong); off: no more reads. */
export function followRequests(on: boolean, fail: (err: unknown) => void): void {
  clearInterval(following);
  following = on ? setInterval(() => void loadNewer().catch(fail), FOLLOW_MS) : undefined;
}
