// Usage sums, recent requests and the audit log as admin reads (admin-sql.ts explains the generator
// form). Both read the usage table the ledger writes as it settles: the same rows whose costs the
// ledger charged, so the sums equal the spend counters.
import { errors } from '../errors/index.js';
import { first, rows, sql, type Op, type SqlKind, type SqlValue } from './admin-sql.js';
import type { AuditRow, RequestRow, UsageFilter, UsageGroup, UsageSums } from './admin-store.js';
import type { TokenCounts } from './types.js';

/** What each grouping groups by: the served model (the one charged), else the requested one. */
function groupExpression(group: UsageGroup, kind: SqlKind): string {
  switch (group) {
    case 'day':
      return kind === 'sqlite' ? "strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')" : "to_char(to_timestamp(created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')";
    case 'model':
      return 'coalesce(model_served, model_requested)';
    case 'key':
      return 'key_id';
    case 'project':
      return 'project';
    case 'end_user':
      return 'end_user_id';
  }
}

/** An extra condition of a read, with its parameters. */
interface Clause {
  text: string;
  params: SqlValue[];
}

/**
 * SQLite's one usage index is usage_org_time (org, time, key; migration 6). A read by organization
 * uses it as it is; a read by key or by time alone names the organizations to search, from key_orgs
 * (every (key, organization) pair of the usage rows, kept by the ledger, key-org-pairs.ts, and every
 * key's own pair, migration 7): the key's, or every one. The clause only narrows the search (every
 * row's pair is in key_orgs; a pair without rows adds an empty range): the rows answered are the same.
 */
function organizationsOf(filter: UsageFilter, kind: SqlKind): Clause | null {
  if (kind !== 'sqlite' || filter.org !== undefined) return null;
  if (filter.key !== undefined) return { text: 'org IN (SELECT org FROM key_orgs WHERE key_id = ?)', params: [filter.key] };
  if (filter.from !== undefined || filter.to !== undefined) return { text: 'org IN (SELECT org FROM key_orgs)', params: [] };
  return null;
}

function whereOf(filter: UsageFilter, kind: SqlKind, extra: readonly Clause[] = []): { text: string; params: SqlValue[] } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const add = (clause: string, ...values: SqlValue[]): void => void (where.push(clause), params.push(...values));
  const organizations = organizationsOf(filter, kind);
  if (organizations !== null) add(organizations.text, ...organizations.params);
  if (filter.from !== undefined) add('created_at >= ?', filter.from);
  if (filter.to !== undefined) add('created_at < ?', filter.to);
  if (filter.org !== undefined) add('org = ?', filter.org);
  if (filter.project !== undefined) add('project = ?', filter.project);
  if (filter.key !== undefined) add('key_id = ?', filter.key);
  if (filter.model !== undefined) add('(model_served = ? OR model_requested = ?)', filter.model, filter.model);
  for (const clause of extra) add(clause.text, ...clause.params);
  return { text: where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '', params };
}

const SUMS = `count(*) AS requests,
  CAST(coalesce(sum(input_tokens), 0) AS BIGINT) AS input_tokens, CAST(coalesce(sum(output_tokens), 0) AS BIGINT) AS output_tokens,
  CAST(coalesce(sum(cache_read_tokens), 0) AS BIGINT) AS cache_read_tokens, CAST(coalesce(sum(cache_write_tokens), 0) AS BIGINT) AS cache_write_tokens,
  CAST(coalesce(sum(reasoning_tokens), 0) AS BIGINT) AS reasoning_tokens, CAST(coalesce(sum(web_searches), 0) AS BIGINT) AS web_searches,
  CAST(coalesce(sum(cost), 0) AS BIGINT) AS cost`;

/** The usage table's count columns, as a row or a sum of rows reads them (PostgreSQL answers BIGINT as a string). */
type TokenColumns = Record<'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens' | 'reasoning_tokens' | 'web_searches', number>;

const tokensOf = (r: TokenColumns): TokenCounts => ({
  inputTokens: Number(r.input_tokens),
  outputTokens: Number(r.output_tokens),
  cacheReadTokens: Number(r.cache_read_tokens),
  cacheWriteTokens: Number(r.cache_write_tokens),
  reasoningTokens: Number(r.reasoning_tokens),
  webSearches: Number(r.web_searches),
});

type SumColumns = TokenColumns & Record<'requests' | 'cost', number> & { grp: string | null };

const sumsOf = (r: SumColumns): UsageSums => ({
  group: r.grp ?? null,
  requests: Number(r.requests),
  ...tokensOf(r),
  cost: Number(r.cost),
});

/** Sums per group (ordered by group), or one row of totals when `group` is null. */
export function* usageSums(filter: UsageFilter, group: UsageGroup | null, kind: SqlKind): Op<UsageSums[]> {
  const where = whereOf(filter, kind);
  if (group === null) return (yield* rows<SumColumns>(sql(`SELECT NULL AS grp, ${SUMS} FROM usage${where.text}`, ...where.params))).map(sumsOf);
  const expr = groupExpression(group, kind);
  const text = `SELECT ${expr} AS grp, ${SUMS} FROM usage${where.text} GROUP BY ${expr} ORDER BY ${expr}`;
  return (yield* rows<SumColumns>(sql(text, ...where.params))).map(sumsOf);
}

interface UsageColumns extends TokenColumns {
  seq: number;
  /** PostgreSQL: the writing transaction's id (xid8, read as text; not named txid, which ORDER BY would then sort as text) */
  txid_text?: string;
  request_id: string;
  key_id: string;
  org: string;
  project: string | null;
  environment: string | null;
  endpoint: string;
  model_requested: string | null;
  model_served: string | null;
  provider: string | null;
  audio_seconds: number | null;
  cost: number;
  call_name: string | null;
  end_user_id: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  created_at: number;
  routing: string | null;
}

const USAGE = `request_id, key_id, org, project, environment, endpoint, model_requested, model_served, provider, input_tokens, output_tokens,
  cache_read_tokens, cache_write_tokens, reasoning_tokens, web_searches, audio_seconds, cost, call_name, end_user_id, status, error_code,
  latency_ms, created_at, routing`;

function requestOf(r: UsageColumns): RequestRow {
  return {
    place: r.txid_text === undefined ? String(r.seq) : `${r.txid_text}-${r.seq}`,
    requestId: r.request_id,
    keyId: r.key_id,
    org: r.org,
    project: r.project,
    environment: r.environment,
    endpoint: r.endpoint,
    modelRequested: r.model_requested,
    modelServed: r.model_served,
    provider: r.provider,
    ...tokensOf(r),
    audioSeconds: r.audio_seconds,
    cost: Number(r.cost),
    callName: r.call_name,
    endUserId: r.end_user_id,
    status: Number(r.status),
    errorCode: r.error_code,
    latencyMs: Number(r.latency_ms),
    createdAt: Number(r.created_at),
    routing: r.routing,
  };
}

const CURSOR_HINT = 'must be the `nextBefore` of an earlier answer';

/**
 * The requests read's order and cursor on each store, newest first. SQLite has one writer, so its
 * rowid order is its commit order: the cursor is the rowid. On PostgreSQL a row's seq is drawn at
 * insert and its transaction may commit after later seqs are visible, so a client that re-reads the
 * top and pages down to what it has seen would skip it. Rows are ordered by (txid, seq) instead and
 * answered only below the oldest transaction still running (the snapshot's xmin): every transaction
 * below it has ended, and every later one gets a higher txid, so no row can ever appear below one
 * already answered. The cost: a row shows once every transaction that began writing before its own
 * has ended (milliseconds for the ledger's batches; as long as a write transaction held open on the
 * same server, whatever its database). The cursor is `txid-seq`.
 */
function orderOf(kind: SqlKind, before: string | null): { select: string; order: string; clauses: Clause[] } {
  if (kind === 'sqlite') {
    if (before !== null && !/^[1-9]\d{0,15}$/.test(before)) throw errors.adminFieldInvalid('before', CURSOR_HINT);
    return { select: 'rowid AS seq', order: 'rowid DESC', clauses: before === null ? [] : [{ text: 'rowid < ?', params: [Number(before)] }] };
  }
  const clauses: Clause[] = [{ text: 'txid < pg_snapshot_xmin(pg_current_snapshot())', params: [] }];
  if (before !== null) {
    const place = /^(\d{1,20})-([1-9]\d{0,15})$/.exec(before);
    if (place === null) throw errors.adminFieldInvalid('before', CURSOR_HINT);
    clauses.push({ text: '(txid, seq) < (CAST(? AS xid8), CAST(? AS BIGINT))', params: [place[1]!, place[2]!] });
  }
  return { select: 'seq, txid::text AS txid_text', order: 'txid DESC, seq DESC', clauses };
}

/** Up to `limit` rows newest first, below the cursor `before` (a row's `place`) when given. */
export function* recentRequests(filter: UsageFilter, limit: number, before: string | null, kind: SqlKind): Op<RequestRow[]> {
  const order = orderOf(kind, before);
  const where = whereOf(filter, kind, order.clauses);
  const text = `SELECT ${order.select}, ${USAGE} FROM usage${where.text} ORDER BY ${order.order} LIMIT ?`;
  return (yield* rows<UsageColumns>(sql(text, ...where.params, limit))).map(requestOf);
}

const AFTER_HINT = 'must be `0`, the `nextAfter` or `nextBefore` of an earlier answer, or the id of a request the gateway recorded';

/**
 * Where `after` starts, as a place of the store's form: `0` (before every row), a place, or a
 * request id (the place of its row). On PostgreSQL a request whose row is not listed yet (a
 * transaction that began before its own is still open) starts at the oldest open transaction
 * instead (`<xmin>-0`): the rows that will commit below it are answered too, with it, rather than
 * skipped.
 */
function* afterPlace(after: string, kind: SqlKind): Op<string> {
  if (after === '0' || (kind === 'sqlite' ? /^[1-9]\d{0,15}$/ : /^\d{1,20}-(0|[1-9]\d{0,15})$/).test(after)) return after;
  if (kind === 'sqlite') {
    const row = yield* first<{ seq: number }>(sql('SELECT rowid AS seq FROM usage WHERE request_id = ?', after));
    if (row === null) throw errors.adminFieldInvalid('after', AFTER_HINT);
    return String(row.seq);
  }
  const text = `SELECT txid::text AS txid_text, seq, (txid < pg_snapshot_xmin(pg_current_snapshot())) AS listed,
    pg_snapshot_xmin(pg_current_snapshot())::text AS xmin FROM usage WHERE request_id = ?`;
  const row = yield* first<{ txid_text: string; seq: number; listed: boolean; xmin: string }>(sql(text, after));
  if (row === null) throw errors.adminFieldInvalid('after', AFTER_HINT);
  return row.listed ? `${row.txid_text}-${row.seq}` : `${row.xmin}-0`;
}

/**
 * Up to `limit` rows oldest first, after `after` (see afterPlace), with the place they start from.
 * The same rows as the newest-first read answers, in the other direction: on PostgreSQL only rows
 * below the oldest open transaction, so a client that pages forward from the last row it got
 * (`nextAfter`) misses none written later, whatever order their transactions commit in.
 */
export function* requestsAfter(filter: UsageFilter, limit: number, after: string, kind: SqlKind): Op<{ rows: RequestRow[]; from: string }> {
  const from = yield* afterPlace(after, kind);
  const clauses: Clause[] = [];
  if (kind === 'sqlite') {
    if (from !== '0') clauses.push({ text: 'rowid > ?', params: [Number(from)] });
  } else {
    clauses.push({ text: 'txid < pg_snapshot_xmin(pg_current_snapshot())', params: [] });
    const place = /^(\d+)-(\d+)$/.exec(from);
    if (place !== null) clauses.push({ text: '(txid, seq) > (CAST(? AS xid8), CAST(? AS BIGINT))', params: [place[1]!, place[2]!] });
  }
  const select = kind === 'sqlite' ? 'rowid AS seq' : 'seq, txid::text AS txid_text';
  const where = whereOf(filter, kind, clauses);
  const text = `SELECT ${select}, ${USAGE} FROM usage${where.text} ORDER BY ${kind === 'sqlite' ? 'rowid' : 'txid, seq'} LIMIT ?`;
  return { rows: (yield* rows<UsageColumns>(sql(text, ...where.params, limit))).map(requestOf), from };
}

export function* auditLog(limit: number): Op<AuditRow[]> {
  const found = yield* rows<AuditRow>(sql('SELECT seq, at, actor, action, target, detail FROM audit ORDER BY seq DESC LIMIT ?', limit));
  return found.map((r) => ({ ...r, seq: Number(r.seq), at: Number(r.at) }));
}
