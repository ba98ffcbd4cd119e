// `gateway credits usage --after CURSOR` and `--follow`: the recent requests read forward with the
// admin API's cursor (GET /admin/v1/requests?after=, lib/admin/requests.ts), so an operator sees each
// row once, in the order written, none skipped and none repeated, as `tail -f` shows a log.
//   --after CURSOR  the rows written after CURSOR (`0`, a request id, or a `nextAfter`), oldest first,
//                   up to --limit, then one line {"nextAfter": ..., "hasMore": ...} to go on from;
//   --follow        the newest --limit rows oldest first (or, with --after, every row after it), then
//                   each new row as it is written, polled every --interval seconds, until SIGINT/SIGTERM.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdminContext } from '../admin/context.js';
import { recentRequests, requestsAfter } from '../admin/requests.js';
import type { RequestRow, UsageFilter } from '../store/admin-store.js';

/** rows read per poll while following (the admin API's largest page) */
const FOLLOW_PAGE = 500;

type PrintRow = (row: RequestRow) => void;

/** One forward page after `after`, then where to go on from. */
export async function printAfter(ctx: AdminContext, filter: UsageFilter, limit: number, after: string, printRow: PrintRow, print: (value: unknown) => void): Promise<void> {
  const page = await requestsAfter(ctx, filter, limit, after);
  for (const r of page.rows) printRow(r);
  print({ nextAfter: page.nextAfter, hasMore: page.hasMore });
}

/** Prints rows as they are written until `signal` aborts. */
export async function follow(ctx: AdminContext, filter: UsageFilter, limit: number, after: string | undefined, intervalMs: number, printRow: PrintRow, signal: AbortSignal): Promise<void> {
  let cursor = after;
  if (cursor === undefined) {
    const { rows } = await recentRequests(ctx, filter, limit, null);
    for (let i = rows.length - 1; i >= 0; i--) printRow(rows[i]!);
    cursor = rows[0]?.place ?? '0';
  }
  while (!signal.aborted) {
    const page = await requestsAfter(ctx, filter, FOLLOW_PAGE, cursor);
    for (const r of page.rows) printRow(r);
    cursor = page.nextAfter;
    if (page.hasMore) continue;
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      return; // aborted while waiting
    }
  }
}
