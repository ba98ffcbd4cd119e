// Credits: one function for `POST /admin/v1/orgs/{id}/credits` and `gateway credits add`. A negative
// amount corrects a balance and may not take it below zero (decisions §12): the store decides it in
// one conditional update, so nothing changes when it is refused.
import { unitsToUsd } from '../pricing.js';
import { usdToUnits } from '../store/key-rows.js';
import type { AdminContext } from './context.js';
import { checkBody } from './schemas.js';

/** Adds `units` (negative: removes them) to an organization's balance; returns the new balance in units. */
export async function creditOrg(ctx: AdminContext, org: string, units: number, reason: string): Promise<number> {
  const audit = { actor: ctx.actor, action: 'org.credits', target: `org:${org}`, detail: { usd: unitsToUsd(units), reason } };
  return ctx.store.admin.addCredits(org, units, reason, audit);
}

/** The HTTP body `{usd, reason}`; answers `{org, balance, usd, reason}` in USD. */
export async function addCredits(ctx: AdminContext, org: string, body: unknown): Promise<unknown> {
  const input = checkBody('credits', body);
  const balance = await creditOrg(ctx, org, usdToUnits(input.usd), input.reason);
  return { org, balance: unitsToUsd(balance), usd: input.usd, reason: input.reason };
}
