// The admin credential (decisions §12): the keys in `admin.keys` (and the older `admin.key`) of the
// configuration, and the GATEWAY_ADMIN_KEY environment variable, sent as `Authorization: Bearer`.
// Only their SHA-256 hashes are kept here. Built with each configuration (lib/services.ts), so a
// SIGHUP reload adds and removes admin keys as it does API keys. Admin routes run `requireAdmin`
// (an API key is refused there); the API's auth (lib/auth.ts) asks `isAdminKey` only after a key
// was not found, to refuse the admin key with its own message at no cost to a valid request.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.js';
import { errors } from '../errors/index.js';
import type { Store } from '../store/store.js';

/** the shortest GATEWAY_ADMIN_KEY accepted (as `admin.keys[]` in the schema) */
const MIN_ENV_KEY = 16;

function sha256(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export class AdminCredentials {
  private constructor(private readonly hashes: readonly Buffer[]) {}

  /** From a validated configuration and the environment; a bad GATEWAY_ADMIN_KEY is a config error naming it. */
  static of(config: Config, env: NodeJS.ProcessEnv): AdminCredentials {
    const secrets = [...(config.admin?.key !== undefined ? [config.admin.key] : []), ...(config.admin?.keys ?? [])];
    const fromEnv = env.GATEWAY_ADMIN_KEY;
    if (fromEnv !== undefined && fromEnv !== '') {
      if (fromEnv.length < MIN_ENV_KEY) throw errors.configInvalid(`GATEWAY_ADMIN_KEY: must be at least ${MIN_ENV_KEY} characters`);
      const clash = (config.keys ?? []).findIndex((k) => k.key === fromEnv);
      if (clash >= 0) throw errors.configInvalid(`GATEWAY_ADMIN_KEY: is also keys[${clash}].key; the admin key must be a secret of its own`);
      secrets.push(fromEnv);
    }
    return new AdminCredentials(secrets.map(sha256));
  }

  /** whether any admin key is configured */
  get configured(): boolean {
    return this.hashes.length > 0;
  }

  isAdminKey(secret: string): boolean {
    if (this.hashes.length === 0) return false;
    const hash = sha256(secret);
    let found = false;
    // every hash compared, in constant time: which one matched leaks nothing
    for (const h of this.hashes) found = timingSafeEqual(h, hash) || found;
    return found;
  }
}

/** The secret in `Authorization: Bearer`, the only place an admin key is read from; null when absent. */
function bearerSecret(raw: readonly string[]): string | null {
  let found: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'authorization') continue;
    if (found !== null) throw errors.adminHeaderRepeated();
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(raw[i + 1]!);
    if (!m) throw errors.adminBearerMalformed();
    found = m[1]!;
  }
  return found;
}

/** What an admin route needs from the request and its serving state. */
export interface AdminHead {
  readonly rawHeaders: readonly string[];
  readonly services: { readonly admin?: AdminCredentials; readonly store: Pick<Store, 'findKey'> };
}

/**
 * Throws unless the request carries an admin key: 401 without one or with a wrong one, 403 with an
 * API key. Returns the key's fingerprint (the first 8 hex digits of its SHA-256), which names the
 * actor in the audit log without revealing the key.
 */
export function requireAdmin(head: AdminHead): string {
  const secret = bearerSecret(head.rawHeaders);
  if (secret === null) throw errors.adminMissing();
  const { admin, store } = head.services;
  if (admin?.isAdminKey(secret) === true) return sha256(secret).toString('hex').slice(0, 8);
  if (store.findKey(secret) !== null) throw errors.adminGotApiKey();
  throw admin?.configured === true ? errors.adminInvalid() : errors.adminNotConfigured();
}
