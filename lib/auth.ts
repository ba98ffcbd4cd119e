// Authentication and endpoint scopes. A credential comes in `Authorization: Bearer <key>` or
// `x-api-key: <key>`; both present must hold the same key; a duplicated credential header is refused.
import type { Scope } from './config.js';
import type { RequestContext } from './context.js';
import { errors } from './errors/index.js';
import type { KeyRecord } from './store/types.js';

/** The presented key, from the raw header list (so duplicates are visible). */
export function presentedKey(raw: readonly string[]): string {
  // one pass; only a name of the right length is lower-cased (most headers are neither)
  let auth: string | undefined;
  let xkey: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') {
      if (auth !== undefined) throw errors.authHeaderRepeated();
      auth = raw[i + 1]!;
    } else if (name.length === 9 && name.toLowerCase() === 'x-api-key') {
      if (xkey !== undefined) throw errors.authHeaderRepeated();
      xkey = raw[i + 1]!;
    }
  }
  let bearer: string | undefined;
  if (auth !== undefined) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth);
    if (!m) throw errors.authBearerMalformed();
    bearer = m[1];
  }
  const api = xkey !== undefined ? xkey.trim() : undefined;
  if (bearer !== undefined && api !== undefined && bearer !== api) {
    throw errors.authKeysDiffer();
  }
  const key = bearer ?? api;
  if (!key) throw errors.authMissing();
  return key;
}

export function authenticate(head: Pick<RequestContext, 'rawHeaders' | 'services'>): KeyRecord {
  const secret = presentedKey(head.rawHeaders);
  const key = head.services.store.findKey(secret);
  // only after the key was not found: the admin key gets its own refusal, a valid key pays nothing
  if (!key) throw head.services.admin?.isAdminKey(secret) ? errors.apiGotAdminKey() : errors.authInvalid();
  return key;
}

/** Endpoint allowlist: empty = unrestricted; `chat.completions` also grants `responses`. */
export function hasScope(key: KeyRecord, scope: Scope): boolean {
  if (key.scopes.length === 0) return true;
  if (key.scopes.includes(scope)) return true;
  return scope === 'responses' && key.scopes.includes('chat.completions');
}

export function requireScope(ctx: { readonly key: KeyRecord | null }, scope: Scope): void {
  if (!ctx.key || !hasScope(ctx.key, scope)) {
    throw errors.scopeDenied(scope, ctx.key?.id);
  }
}
