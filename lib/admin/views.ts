// The admin API's objects (the contract in decisions §12): the store's rows with money in USD and
// times as ISO strings. A key's view never holds its secret or hash, only the hint.
import { unitsToUsd } from '../pricing.js';
import type { AdminKeyRow, EnvironmentRow, OrgRow, ProjectRow } from '../store/admin-store.js';

const usdOrNull = (units: number | null): number | null => (units === null ? null : unitsToUsd(units));
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function orgView(o: OrgRow): Record<string, unknown> {
  return { id: o.id, balance: unitsToUsd(o.balance), spendCap: usdOrNull(o.spendCap), spent: unitsToUsd(o.spent), reserved: unitsToUsd(o.reserved), source: o.source };
}

export function environmentView(e: EnvironmentRow): Record<string, unknown> {
  return { id: e.id, org: e.org, project: e.project, spendCap: usdOrNull(e.spendCap), spent: unitsToUsd(e.spent), reserved: unitsToUsd(e.reserved) };
}

export function projectView(p: ProjectRow, environments: readonly EnvironmentRow[]): Record<string, unknown> {
  return {
    id: p.id,
    org: p.org,
    spendCap: usdOrNull(p.spendCap),
    spent: unitsToUsd(p.spent),
    reserved: unitsToUsd(p.reserved),
    environments: environments.filter((e) => e.project === p.id).map(environmentView),
  };
}

export function keyView(k: AdminKeyRow): Record<string, unknown> {
  const rateLimit = k.rpm === null && k.tpm === null ? null : { ...(k.rpm !== null ? { rpm: k.rpm } : {}), ...(k.tpm !== null ? { tpm: k.tpm } : {}) };
  return {
    id: k.id,
    org: k.org,
    project: k.project,
    environment: k.environment,
    name: k.name,
    scopes: k.scopes,
    models: k.models,
    spendCap: usdOrNull(k.spendCap),
    rateLimit,
    spent: unitsToUsd(k.spent),
    reserved: unitsToUsd(k.reserved),
    source: k.source,
    revoked: k.revoked,
    createdAt: isoOrNull(k.createdAt),
    revokedAt: isoOrNull(k.revokedAt),
    hint: k.hint,
  };
}

export function list(data: readonly unknown[]): { object: 'list'; data: readonly unknown[] } {
  return { object: 'list', data };
}
