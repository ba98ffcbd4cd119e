// Usage sums (GET /admin/v1/usage, `gateway usage`): requests, tokens and USD per day, model, key,
// project or end user, with the totals, from the usage rows the ledger settled, so the USD equals
// the spend the ledger charged and the `gateway.cost` clients were told.
import { errors } from '../errors/index.js';
import { unitsToUsd } from '../pricing.js';
import type { UsageFilter, UsageGroup, UsageSums } from '../store/admin-store.js';
import type { AdminContext } from './context.js';
import { FILTER_PARAMS, oneParam, usageFilter } from './filters.js';

export const USAGE_PARAMS = [...FILTER_PARAMS, 'group_by'] as const;
const GROUPS: readonly UsageGroup[] = ['day', 'model', 'key', 'project', 'end_user'];

function sumsView(s: UsageSums): Record<string, unknown> {
  return {
    requests: s.requests,
    inputTokens: s.inputTokens,
    outputTokens: s.outputTokens,
    cacheReadTokens: s.cacheReadTokens,
    cacheWriteTokens: s.cacheWriteTokens,
    reasoningTokens: s.reasoningTokens,
    webSearches: s.webSearches,
    usd: unitsToUsd(s.cost),
  };
}

export function usageGroup(text: string | undefined): UsageGroup {
  if (text === undefined) return 'day';
  if (!(GROUPS as readonly string[]).includes(text)) throw errors.adminFieldInvalid('group_by', `must be one of ${GROUPS.join(', ')}, got "${text}"`);
  return text as UsageGroup;
}

/** The sums by `group` and the totals, for a filter. */
export async function usageReport(ctx: AdminContext, filter: UsageFilter, group: UsageGroup): Promise<Record<string, unknown>> {
  const [groups, totals] = await Promise.all([ctx.store.admin.usage(filter, group), ctx.store.admin.usage(filter, null)]);
  return { object: 'list', group_by: group, data: groups.map((g) => ({ group: g.group, ...sumsView(g) })), total: sumsView(totals[0]!) };
}

export async function getUsage(ctx: AdminContext, query: URLSearchParams): Promise<unknown> {
  return usageReport(ctx, usageFilter(query), usageGroup(oneParam(query, 'group_by')));
}
