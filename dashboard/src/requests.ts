// Recent requests, newest first (GET /admin/v1/requests): status, tokens, cost, latency, and for
// gateway-auto the routing decision (the served model against the requested one, why, and the top
// candidates with their predicted quality and expected cost). "Load older" follows `nextBefore`.
import { api } from './api.js';
import { byId, count, fillRows, h, usd, when } from './dom.js';
import type { RequestPage, RequestRecord, RoutingDecision } from './types.js';

const PAGE = 25;
/** candidates shown in a decision */
const TOP = 3;

let nextBefore: string | null = null;
let shown: HTMLTableRowElement[] = [];

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

/** Load the newest page (`older`: the next older page, appended). */
export async function loadRequests(org: string, older = false): Promise<void> {
  const page = await api.get<RequestPage>('requests', { limit: PAGE, org, before: older ? (nextBefore ?? undefined) : undefined });
  const rows = page.data.map(row);
  shown = older ? [...shown, ...rows] : rows;
  nextBefore = page.hasMore ? page.nextBefore : null;
  fillRows(byId<HTMLTableSectionElement>('requests-rows'), shown, 'No requests yet.');
  byId<HTMLButtonElement>('requests-more').hidden = nextBefore === null;
}
