// Key management: the list (GET /admin/v1/keys; never a secret, only its last characters), the
// create form (POST /admin/v1/keys: the secret is shown this once, with a copy button) and
// revocation behind a confirmation dialog (DELETE /admin/v1/keys/{id}).
import { api, ApiError, seg } from './api.js';
import { byId, cap, clearError, fillRows, h, showError, usd, when } from './dom.js';
import type { CreatedKey, Key, List, OrgDetail } from './types.js';

function keyRow(k: Key, onRevoke: (k: Key) => void): HTMLTableRowElement {
  const where = [k.org, k.project, k.environment].filter((x) => x !== null).join(' / ');
  const action = k.revoked
    ? h('span', { class: 'bad' }, `revoked ${when(k.revokedAt)}`)
    : k.source === 'config'
      ? h('span', { class: 'muted', title: 'defined in the configuration file' }, 'config')
      : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke key ${k.id}` }, 'Revoke');
  if (action instanceof HTMLButtonElement) action.addEventListener('click', () => onRevoke(k));
  return h(
    'tr',
    { 'data-key': k.id, class: k.revoked ? 'revoked' : null },
    h('th', { scope: 'row' }, h('code', {}, k.id)),
    h('td', {}, k.name ?? '—'),
    h('td', {}, where),
    h('td', {}, k.hint === null ? '—' : h('code', {}, k.hint)),
    h('td', {}, k.models.length > 0 ? k.models.join(', ') : 'all'),
    h('td', { class: 'num' }, cap(k.spendCap)),
    h('td', { class: 'num', 'data-col': 'spent' }, usd(k.spent)),
    h('td', {}, when(k.createdAt)),
    h('td', { 'data-col': 'status' }, action),
  );
}

export async function loadKeys(org: string, onRevoke: (k: Key) => void): Promise<void> {
  const keys = (await api.get<List<Key>>('keys', { org })).data;
  fillRows(byId<HTMLTableSectionElement>('keys-rows'), keys.map((k) => keyRow(k, onRevoke)), 'No keys yet.');
}

/** The org and project choices of the create form. */
export function offerOrgs(orgs: readonly OrgDetail[]): void {
  const orgSelect = byId<HTMLSelectElement>('key-org');
  const projectSelect = byId<HTMLSelectElement>('key-project');
  const chosen = orgSelect.value;
  orgSelect.replaceChildren(...orgs.map((o) => h('option', { value: o.id, selected: o.id === chosen }, o.id)));
  const fillProjects = (): void => {
    const org = orgs.find((o) => o.id === orgSelect.value);
    projectSelect.replaceChildren(h('option', { value: '' }, '(none)'), ...(org?.projects ?? []).map((p) => h('option', { value: p.id }, p.id)));
  };
  orgSelect.onchange = fillProjects;
  fillProjects();
}

/** The create form's fields as the API's body; a malformed number is reported as the API would. */
function bodyOf(form: HTMLFormElement): Record<string, unknown> {
  const data = new FormData(form);
  const text = (name: string): string => String(data.get(name) ?? '').trim();
  const body: Record<string, unknown> = { org: text('org') };
  if (text('project') !== '') body.project = text('project');
  if (text('environment') !== '') body.environment = text('environment');
  if (text('name') !== '') body.name = text('name');
  if (text('spendCap') !== '') {
    const n = Number(text('spendCap'));
    if (!Number.isFinite(n)) throw new ApiError(0, 'The spend cap must be a number of USD.', 'spendCap', null);
    body.spendCap = n;
  }
  const models = text('models').split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (models.length > 0) body.models = models;
  const scopes = data.getAll('scopes').map(String);
  // every scope ticked means no restriction: the key is left open to scopes added later
  if (scopes.length < form.querySelectorAll('input[name="scopes"]').length) body.scopes = scopes;
  return body;
}

/** Mark the field an API error names (its top-level name: `scopes[1]` → scopes), and focus it. */
function markField(form: HTMLFormElement, err: unknown): void {
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  const param = err instanceof ApiError ? err.param : null;
  if (param === null) return;
  const field = form.querySelector<HTMLElement>(`[name="${CSS.escape(param.replace(/[.[].*$/, ''))}"]`);
  if (field === null) return;
  field.setAttribute('aria-invalid', 'true');
  field.focus();
}

export function initKeyForm(onCreated: () => void): void {
  const form = byId<HTMLFormElement>('key-form');
  const error = byId('key-error');
  const created = byId('key-created');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearError(error);
    created.hidden = true;
    void (async () => {
      try {
        const key = await api.post<CreatedKey>('keys', bodyOf(form));
        markField(form, null);
        byId('key-secret').textContent = key.key;
        byId('key-created-id').textContent = key.id;
        byId('key-copy-status').textContent = '';
        created.hidden = false;
        form.reset();
        onCreated();
      } catch (err) {
        showError(error, err);
        markField(form, err);
      }
    })();
  });
  byId('key-copy').addEventListener('click', () => {
    const secret = byId('key-secret').textContent ?? '';
    const status = byId('key-copy-status');
    navigator.clipboard.writeText(secret).then(
      () => (status.textContent = 'Copied.'),
      () => (status.textContent = 'Copy failed: select the key and copy it by hand.'),
    );
  });
  byId('key-dismiss').addEventListener('click', () => {
    byId('key-secret').textContent = '';
    created.hidden = true;
  });
}

/** Ask before revoking; resolves with the revoked key, or null when the operator cancels. */
export function confirmRevoke(key: Key): Promise<Key | null> {
  const dialog = byId<HTMLDialogElement>('revoke-dialog');
  const error = byId('revoke-error');
  byId('revoke-id').textContent = key.id;
  clearError(error);
  dialog.showModal();
  return new Promise((resolve) => {
    const confirm = byId<HTMLButtonElement>('revoke-confirm');
    const cancel = byId<HTMLButtonElement>('revoke-cancel');
    const done = (result: Key | null): void => {
      confirm.onclick = null;
      cancel.onclick = null;
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      resolve(result);
    };
    cancel.onclick = () => done(null);
    dialog.onclose = () => done(null);
    confirm.onclick = () => {
      api.del<Key>(`keys/${seg(key.id)}`).then(done, (err: unknown) => showError(error, err));
    };
  });
}
