// Keys: the admin operations behind /admin/v1/keys and `gateway keys`. A created key's secret is
// made from 24 random bytes, answered this once, and stored only as its SHA-256 hash (key-rows.ts
// hashes config keys the same way). A change serves on this process when the store answers
// (admin-ops.ts), on processes sharing the store through key_epoch or NOTIFY, and on replicas
// sharing Redis through the bus (`keysChanged`): well within a second everywhere.
import { randomBytes } from 'node:crypto';
import { keyModelProblem } from '../config-references.js';
import { errors } from '../errors/index.js';
import type { KeyChanges } from '../store/admin-store.js';
import { capUnits, hashKey } from '../store/key-rows.js';
import type { AdminContext } from './context.js';
import { checkBody, type KeyPatch, type RateLimitBody } from './schemas.js';
import { keyView, list } from './views.js';

/** A new secret in the gateway's key format (as the built-in default's `sk-gw-…`), its hash and its hint. */
export function newSecret(): { secret: string; hash: string; hint: string } {
  const secret = `sk-gw-${randomBytes(24).toString('base64url')}`;
  return { secret, hash: hashKey(secret), hint: `sk-gw-…${secret.slice(-4)}` };
}

/** Model allowlist entries name catalog models, as a config key's must (config-references.ts). */
function checkModels(ctx: AdminContext, models: readonly string[] | null | undefined): void {
  models?.forEach((entry, i) => {
    const problem = keyModelProblem(entry, ctx.catalog);
    if (problem !== null) throw errors.adminFieldInvalid(`models[${i}]`, problem);
  });
}

const limits = (r: RateLimitBody | null | undefined): { rpm: number | null; tpm: number | null } => ({ rpm: r?.rpm ?? null, tpm: r?.tpm ?? null });

/** What the audit log keeps of a key's settings (never its secret). */
function settings(input: KeyPatch): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

export async function listKeys(ctx: AdminContext, filter: { org?: string; project?: string }): Promise<unknown> {
  return list((await ctx.store.admin.listKeys(filter)).map(keyView));
}

export async function getKey(ctx: AdminContext, id: string): Promise<unknown> {
  const key = await ctx.store.admin.getKey(id);
  if (key === null) throw errors.adminNotFound('key', id);
  return keyView(key);
}

/** Creates a key; the answer carries its secret in `key`, the only time it is shown. */
export async function createKey(ctx: AdminContext, body: unknown): Promise<Record<string, unknown>> {
  const input = checkBody('keyCreate', body);
  checkModels(ctx, input.models);
  if (input.environment !== undefined && input.project === undefined) throw errors.adminFieldInvalid('environment', 'needs `project`: an environment belongs to a project');
  const { secret, hash, hint } = newSecret();
  const { rpm, tpm } = limits(input.rateLimit);
  const key = {
    id: `key_${randomBytes(8).toString('hex')}`,
    hash,
    hint,
    org: input.org,
    project: input.project ?? null,
    environment: input.environment ?? null,
    name: input.name ?? null,
    scopes: input.scopes ?? [],
    models: input.models ?? [],
    spendCap: capUnits(input.spendCap),
    rpm,
    tpm,
  };
  const audit = { actor: ctx.actor, action: 'key.create', target: `key:${key.id}`, detail: { org: key.org, project: key.project, environment: key.environment, ...settings(input) } };
  const row = await ctx.store.admin.createKey(key, audit);
  ctx.keysChanged?.();
  return { ...keyView(row), key: secret };
}

export async function updateKey(ctx: AdminContext, id: string, body: unknown): Promise<unknown> {
  const input = checkBody('keyPatch', body);
  checkModels(ctx, input.models);
  const changes: KeyChanges = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.scopes !== undefined) changes.scopes = input.scopes ?? [];
  if (input.models !== undefined) changes.models = input.models ?? [];
  if (input.spendCap !== undefined) changes.spendCap = capUnits(input.spendCap);
  if (input.rateLimit !== undefined) changes.rateLimit = limits(input.rateLimit);
  const row = await ctx.store.admin.updateKey(id, changes, { actor: ctx.actor, action: 'key.update', target: `key:${id}`, detail: settings(input) });
  ctx.keysChanged?.();
  return keyView(row);
}

export async function revokeKey(ctx: AdminContext, id: string): Promise<unknown> {
  const row = await ctx.store.admin.revokeKey(id, { actor: ctx.actor, action: 'key.revoke', target: `key:${id}`, detail: {} });
  ctx.keysChanged?.();
  return keyView(row);
}
