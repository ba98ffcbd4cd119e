// The audit log, newest first (GET /admin/v1/audit): who (the admin credential's fingerprint,
// never the key) changed what, and when — every change the admin API or this page made.
import { api } from './api.js';
import { byId, fillRows, h, when } from './dom.js';
import type { AuditEntry, List } from './types.js';

const LIMIT = 20;

function row(e: AuditEntry): HTMLTableRowElement {
  const detail = e.detail === null || e.detail === undefined ? '' : JSON.stringify(e.detail);
  return h(
    'tr',
    { 'data-action': e.action },
    h('td', {}, when(e.at)),
    h('td', {}, h('code', {}, e.actor)),
    h('th', { scope: 'row' }, e.action),
    h('td', {}, h('code', {}, e.target)),
    h('td', {}, h('code', { class: 'detail' }, detail)),
  );
}

export async function loadAudit(): Promise<void> {
  const entries = (await api.get<List<AuditEntry>>('audit', { limit: LIMIT })).data;
  fillRows(byId<HTMLTableSectionElement>('audit-rows'), entries.map(row), 'No changes recorded yet.');
}
