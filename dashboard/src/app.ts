// The dashboard's entry: sign-in and sign-out, the organisation filter, and loading every panel
// (balances, spend, recent requests, keys, audit log) after sign-in, a refresh, a new key or a revocation.
// A 401 from any call (the admin key was removed by a reload, say) signs out and says why.
import { api, ApiError } from './api.js';
import { loadAudit } from './audit.js';
import { byId, clearError, h, showError } from './dom.js';
import { confirmRevoke, initKeyForm, loadKeys, offerOrgs } from './keys.js';
import { initCreditsForm, loadOrgs, offerCreditOrgs } from './orgs.js';
import { followRequests, loadNewer, loadRequests } from './requests.js';
import { adminKey, signIn, signOut } from './session.js';
import { loadSpend, type SpendQuery } from './spend.js';
import type { Key, OrgDetail } from './types.js';

const pageError = byId('page-error');
const signInError = byId('sign-in-error');
const orgFilter = byId<HTMLSelectElement>('org-filter');

function show(signedIn: boolean): void {
  byId('sign-in').hidden = signedIn;
  byId('console').hidden = !signedIn;
  byId('sign-out').hidden = !signedIn;
  if (!signedIn) byId<HTMLInputElement>('admin-key').focus();
}

function failed(err: unknown): void {
  if (err instanceof ApiError && err.status === 401) {
    signOut();
    show(false);
    showError(signInError, err);
    return;
  }
  showError(pageError, err);
}

function spendQuery(): SpendQuery {
  return {
    by: byId<HTMLSelectElement>('spend-by').value as SpendQuery['by'],
    days: Number(byId<HTMLSelectElement>('spend-days').value),
    org: orgFilter.value,
  };
}

function offerOrgFilter(orgs: readonly OrgDetail[]): void {
  const chosen = orgFilter.value;
  orgFilter.replaceChildren(h('option', { value: '' }, 'All organisations'), ...orgs.map((o) => h('option', { value: o.id, selected: o.id === chosen }, o.id)));
}

async function revoke(key: Key): Promise<void> {
  const revoked = await confirmRevoke(key);
  if (revoked === null) return;
  byId('keys-status').textContent = `Key ${revoked.id} revoked.`;
  await refresh();
}

async function refresh(): Promise<void> {
  clearError(pageError);
  const busy = byId('busy');
  busy.hidden = false;
  try {
    const orgs = await loadOrgs();
    offerOrgs(orgs);
    offerCreditOrgs(orgs);
    offerOrgFilter(orgs);
    const org = orgFilter.value;
    await Promise.all([loadSpend(spendQuery()), loadRequests(org), loadKeys(org, (k) => void revoke(k)), loadAudit()]);
  } catch (err) {
    failed(err);
  } finally {
    busy.hidden = true;
  }
}

byId<HTMLFormElement>('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  clearError(signInError);
  const input = byId<HTMLInputElement>('admin-key');
  const key = input.value.trim();
  // checked against the API before it is kept: a wrong key never reaches sessionStorage
  api.get('orgs', undefined, key).then(
    () => {
      signIn(key);
      input.value = '';
      show(true);
      void refresh();
    },
    (err: unknown) => {
      showError(signInError, err);
      input.select();
    },
  );
});

byId('sign-out').addEventListener('click', () => {
  signOut();
  byId<HTMLInputElement>('requests-follow').checked = false;
  followRequests(false, failed);
  for (const id of ['orgs-rows', 'spend-rows', 'requests-rows', 'keys-rows', 'audit-rows', 'spend-chart', 'spend-total']) byId(id).replaceChildren();
  byId('key-created').hidden = true;
  byId('key-secret').textContent = '';
  clearError(pageError);
  show(false);
});

byId('refresh').addEventListener('click', () => void refresh());
orgFilter.addEventListener('change', () => void refresh());
byId('spend-form').addEventListener('change', () => void loadSpend(spendQuery()).catch(failed));
byId('requests-more').addEventListener('click', () => void loadRequests(orgFilter.value, true).catch(failed));
byId('requests-newer').addEventListener('click', () => void loadNewer().catch(failed));
byId<HTMLInputElement>('requests-follow').addEventListener('change', (e) => followRequests((e.target as HTMLInputElement).checked, failed));
initKeyForm(() => void refresh());
initCreditsForm(() => void refresh());

if (adminKey() !== null) {
  show(true);
  void refresh();
} else show(false);
