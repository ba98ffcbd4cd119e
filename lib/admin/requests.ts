// Recent requests (GET /admin/v1/requests, `gateway credits usage`, its `--after` and `--follow`): the usage rows newest first,
// each with its routing decision, paged with a cursor: `nextBefore` is the place of the last row
// answered, and `before=<it>` answers the rows written before it. On PostgreSQL a row is answered
// only once no row can commit below it (../store/admin-usage-ops.ts), so a client that re-reads the
// first page and pages down to the newest row it has seen misses none.
// Forward: `after=<place>` answers the rows written after it, oldest first, and `nextAfter` where
// the next page starts (the last row answered; where this one started when it had none), so a
// client that keeps asking from `nextAfter` gets every row once, in order, as they are written.
// `after` also takes `0` (from the first row) or a request id (from that request's row). A
// newest-first answer says in `nextAfter` where the rows after its newest row start.
import { errors } from '../errors/index.js';
import { unitsToUsd } from '../pricing.js';
import type { RequestRow, UsageFilter } from '../store/admin-store.js';
import type { AdminContext } from './context.js';
import { FILTER_PARAMS, intParam, oneParam, usageFilter } from './filters.js';

export const REQUESTS_PARAMS = [...FILTER_PARAMS, 'limit', 'before', 'after'] as const;

/** The stored decision of a gateway-auto request as the object it was (the text, if it is not JSON). */
export function parsedRouting(text: string | null | undefined): unknown {
  if (text === null || text === undefined || text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function requestView(r: RequestRow): Record<string, unknown> {
  return {
    requestId: r.requestId,
    at: new Date(r.createdAt).toISOString(),
    endpoint: r.endpoint,
    requestedModel: r.modelRequested,
    servedModel: r.modelServed,
    provider: r.provider,
    routing: parsedRouting(r.routing),
    status: r.status,
    errorCode: r.errorCode,
    inputTokens: r.inputTokens,
    outputTokens: r.outputTokens,
    cacheReadTokens: r.cacheReadTokens,
    cacheWriteTokens: r.cacheWriteTokens,
    reasoningTokens: r.reasoningTokens,
    webSearches: r.webSearches,
    usd: unitsToUsd(r.cost),
    latencyMs: r.latencyMs,
    callName: r.callName,
    endUserId: r.endUserId,
    key: r.keyId,
    org: r.org,
    project: r.project,
    environment: r.environment,
  };
}

/** Up to `limit` rows before the cursor, and whether more are older. */
export async function recentRequests(ctx: AdminContext, filter: UsageFilter, limit: number, before: string | null): Promise<{ rows: RequestRow[]; hasMore: boolean }> {
  const found = await ctx.store.admin.requests(filter, limit + 1, before);
  return { rows: found.slice(0, limit), hasMore: found.length > limit };
}

/** Up to `limit` rows after the cursor, oldest first, whether more came, and where the next page starts. */
export async function requestsAfter(ctx: AdminContext, filter: UsageFilter, limit: number, after: string): Promise<{ rows: RequestRow[]; hasMore: boolean; nextAfter: string }> {
  const found = await ctx.store.admin.requestsAfter(filter, limit + 1, after);
  const rows = found.rows.slice(0, limit);
  return { rows, hasMore: found.rows.length > limit, nextAfter: rows.at(-1)?.place ?? found.from };
}

export async function getRequests(ctx: AdminContext, query: URLSearchParams): Promise<unknown> {
  const filter = usageFilter(query);
  const limit = intParam(query, 'limit', 1, 500, 50);
  // the store checks the cursor: its form is the store's (a rowid on SQLite, txid-seq on PostgreSQL)
  const before = oneParam(query, 'before') ?? null;
  const after = oneParam(query, 'after');
  if (after !== undefined) {
    if (before !== null) throw errors.adminFieldInvalid('after', 'cannot be given with `before`');
    const { rows, hasMore, nextAfter } = await requestsAfter(ctx, filter, limit, after);
    return { object: 'list', data: rows.map(requestView), hasMore, nextAfter };
  }
  const { rows, hasMore } = await recentRequests(ctx, filter, limit, before);
  return { object: 'list', data: rows.map(requestView), hasMore, nextBefore: hasMore ? rows[rows.length - 1]!.place : null, nextAfter: rows[0]?.place ?? null };
}
