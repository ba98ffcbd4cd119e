// The audit log (GET /admin/v1/audit): every admin change, newest first, with who (the admin key's
// fingerprint, or the CLI's user), what (action, target, detail without secrets) and when.
import type { AuditRow } from '../store/admin-store.js';
import type { AdminContext } from './context.js';
import { intParam } from './filters.js';

export const AUDIT_PARAMS = ['limit'] as const;

function auditView(r: AuditRow): Record<string, unknown> {
  let detail: unknown;
  try {
    detail = JSON.parse(r.detail) as unknown;
  } catch {
    detail = r.detail;
  }
  return { seq: r.seq, at: new Date(r.at).toISOString(), actor: r.actor, action: r.action, target: r.target, detail };
}

export async function getAudit(ctx: AdminContext, query: URLSearchParams): Promise<unknown> {
  const limit = intParam(query, 'limit', 1, 1000, 100);
  return { object: 'list', data: (await ctx.store.admin.audit(limit)).map(auditView) };
}
