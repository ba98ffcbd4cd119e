// Keys between the config and the store, on both stores: the row a configured key becomes (its secret
// only as a SHA-256 hash, caps in units), the record a request sees, and the money conversions.
import * as crypto from 'node:crypto';
import type { KeyConfig, Scope } from '../config.js';
import { errors } from '../errors/index.js';
import type { KeyRow } from './seed-keys.js';
import { UNITS_PER_USD, type KeyRecord } from './types.js';

/** Node ≥ 20.12's one-shot digest (no Hash object: a third of the time per request); older 20.x: createHash. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function hashKey(key: string): string {
  if (oneShot !== undefined) return oneShot('sha256', key, 'hex');
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

export function usdToUnits(usd: number): number {
  return Math.round(usd * UNITS_PER_USD);
}

/** A key listed without an id is known by one derived from its secret's hash (stable across starts). */
function keyIdOf(k: KeyConfig): string {
  return k.id ?? `key_${hashKey(k.key).slice(0, 12)}`;
}

/**
 * What the admin API shows of a config key's secret: its last 4 characters, and only for a secret
 * long enough that they give little away (the schema allows 8-character keys).
 */
export function secretHint(secret: string): string | null {
  return secret.length >= 16 ? `…${secret.slice(-4)}` : null;
}

export function capUnits(usd: number | null | undefined): number | null {
  return usd == null ? null : usdToUnits(usd);
}

export function keyRows(keys: readonly KeyConfig[]): KeyRow[] {
  const seen = new Set<string>();
  return keys.map((k, i) => {
    const id = keyIdOf(k);
    // two entries under one id would silently rotate each other at every start
    if (seen.has(id)) throw errors.configKeyIdRepeated(i, id);
    seen.add(id);
    return {
      id,
      hash: hashKey(k.key),
      org: k.org,
      project: k.project ?? null,
      environment: k.environment ?? null,
      scopes: JSON.stringify(k.scopes ?? []),
      models: JSON.stringify(k.models ?? []),
      spend_cap: capUnits(k.spendCap),
      rpm: k.rateLimit?.rpm ?? null,
      tpm: k.rateLimit?.tpm ?? null,
      hint: secretHint(k.key),
    };
  });
}

export function toRecord(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    org: row.org,
    project: row.project,
    environment: row.environment,
    scopes: JSON.parse(row.scopes) as Scope[],
    models: JSON.parse(row.models) as string[],
    spendCap: row.spend_cap,
    rateLimit: { rpm: row.rpm, tpm: row.tpm },
  };
}
