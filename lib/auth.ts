// Authentication and endpoint scopes. A credential comes in `Authorization: Bearer <key>` or
// `x-api-key: <key>`; both present must hold the same key; a duplicated credential header is refused.
import type { Scope } from './config.js';
import type { RequestContext } from './context.js';
import { GatewayError } from './errors.js';
import type { KeyRecord } from './store/types.js';

function headerValues(raw: readonly string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) out.push(raw[i + 1]!);
  return out;
}

/** The presented key, from the raw header list (so duplicates are visible). */
export function presentedKey(raw: readonly string[]): string {
  const auth = headerValues(raw, 'authorization');
  const xkey = headerValues(raw, 'x-api-key');
  if (auth.length > 1 || xkey.length > 1) {
    throw new GatewayError('GW_ERR_AUTH_CONFLICT', 'The credential header appears more than once; send the API key exactly once, in `x-api-key` or `Authorization: Bearer`.');
  }
  let bearer: string | undefined;
  if (auth.length === 1) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth[0]!);
    if (!m) throw new GatewayError('GW_ERR_AUTH_INVALID', 'The Authorization header must have the form `Bearer <API key>`.');
    bearer = m[1];
  }
  const api = xkey.length === 1 ? xkey[0]!.trim() : undefined;
  if (bearer !== undefined && api !== undefined && bearer !== api) {
    throw new GatewayError('GW_ERR_AUTH_CONFLICT', 'The `x-api-key` and `Authorization` headers hold different keys; send one key, or the same key in both.');
  }
  const key = bearer ?? api;
  if (!key) throw new GatewayError('GW_ERR_AUTH_MISSING', 'No API key: send it in `x-api-key` or `Authorization: Bearer <API key>`.');
  return key;
}

export function authenticate(head: Pick<RequestContext, 'rawHeaders' | 'services'>): KeyRecord {
  const key = head.services.store.findKey(presentedKey(head.rawHeaders));
  if (!key) throw new GatewayError('GW_ERR_AUTH_INVALID', 'Invalid API key.');
  return key;
}

/** Endpoint allowlist: empty = unrestricted; `chat.completions` also grants `responses`. */
export function hasScope(key: KeyRecord, scope: Scope): boolean {
  if (key.scopes.length === 0) return true;
  if (key.scopes.includes(scope)) return true;
  return scope === 'responses' && key.scopes.includes('chat.completions');
}

/** which `keys[]` entry to change, for messages that send the operator to the config: only the caller's own key id */
export function keyNote(key: KeyRecord | null | undefined): string {
  return key ? ` (key id "${key.id}")` : '';
}

/** 403 for a model outside the key's model allowlist (chat, messages, responses and transcriptions alike). */
export function modelNotAllowed(key: KeyRecord | null | undefined, modelId: string): GatewayError {
  return new GatewayError(
    'GW_ERR_MODEL_NOT_ALLOWED',
    `model: this API key may not use model "${modelId}". The models a key may use are \`keys[].models\` in the gateway config${keyNote(key)}.`,
    { param: 'model' },
  );
}

export function requireScope(ctx: { readonly key: KeyRecord | null }, scope: Scope): void {
  if (!ctx.key || !hasScope(ctx.key, scope)) {
    throw new GatewayError(
      'GW_ERR_SCOPE_DENIED',
      `This API key is not allowed to use the ${scope} endpoint (its endpoint allowlist excludes "${scope}"). The endpoints a key may use are \`keys[].scopes\` in the gateway config${keyNote(ctx.key)}.`,
    );
  }
}
