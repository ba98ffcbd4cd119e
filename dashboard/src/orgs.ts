// Balances and caps: each organisation's balance, spend, open reservations and cap, and under it
// its projects' caps and spend (GET /admin/v1/orgs, then /orgs/{id} for the projects), and the
// form that adds (or corrects) credits.
import { api, seg } from './api.js';
import { byId, cap, clearError, fillRows, h, showError, usd } from './dom.js';
import type { List, Org, OrgDetail, Project } from './types.js';

function projectList(projects: readonly Project[]): HTMLElement | string {
  if (projects.length === 0) return '—';
  return h(
    'ul',
    { class: 'plain' },
    ...projects.map((p) => h('li', {}, h('code', {}, p.id), ` spent ${usd(p.spent)}, cap ${cap(p.spendCap)}`, p.environments.length > 0 ? ` · ${p.environments.length} env.` : '')),
  );
}

function row(org: Org, projects: readonly Project[]): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-org': org.id },
    h('th', { scope: 'row' }, h('code', {}, org.id)),
    h('td', { class: 'num', 'data-col': 'balance' }, usd(org.balance)),
    h('td', { class: 'num' }, usd(org.spent)),
    h('td', { class: 'num' }, usd(org.reserved)),
    h('td', { class: 'num' }, cap(org.spendCap)),
    h('td', {}, projectList(projects)),
    h('td', {}, org.source),
  );
}

/** Load and show the organisations; answers them, for the forms that offer a choice of org. */
export async function loadOrgs(): Promise<OrgDetail[]> {
  const orgs = (await api.get<List<Org>>('orgs')).data;
  const details = await Promise.all(orgs.map((o) => api.get<OrgDetail>(`orgs/${seg(o.id)}`).catch(() => ({ ...o, projects: [] }))));
  fillRows(byId<HTMLTableSectionElement>('orgs-rows'), details.map((o) => row(o, o.projects ?? [])), 'No organisations yet.');
  return details;
}

/** The organisation choices of the credits form. */
export function offerCreditOrgs(orgs: readonly Org[]): void {
  const select = byId<HTMLSelectElement>('credits-org');
  const chosen = select.value;
  select.replaceChildren(...orgs.map((o) => h('option', { value: o.id, selected: o.id === chosen }, o.id)));
}

/**
 * Add credits (POST /admin/v1/orgs/{id}/credits {usd, reason}); a negative amount corrects, and
 * may not take the balance below zero (the API refuses it, naming `usd`, and nothing changes).
 */
export function initCreditsForm(onDone: () => void): void {
  const form = byId<HTMLFormElement>('credits-form');
  const error = byId('credits-error');
  const status = byId('credits-status');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearError(error);
    status.textContent = '';
    const data = new FormData(form);
    const org = String(data.get('org') ?? '');
    const amount = String(data.get('usd') ?? '').trim();
    const body = { usd: amount === '' ? null : Number(amount), reason: String(data.get('reason') ?? '').trim() };
    api.post<{ org: string; balance: number; usd: number }>(`orgs/${seg(org)}/credits`, body).then(
      (r) => {
        status.textContent = `${r.org}: ${usd(r.usd)} added; the balance is ${usd(r.balance)}.`;
        form.reset();
        onDone();
      },
      (err: unknown) => showError(error, err),
    );
  });
}
