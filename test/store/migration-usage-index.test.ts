// Migration 6 (SQLite): the usage table's one index is usage_org_time (org, time, key), read through
// key_orgs, the (key, organization) pairs of its rows. A file written by the previous version keeps
// every row, and the usage sums and recent requests by organization, key and time range answer the
// same rows as before, including those of a key that moved to another organization, and the rows
// settled after the upgrade (a pair first seen then included).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { usageSums } from '../../lib/store/admin-usage-ops.js';
import type { UsageFilter } from '../../lib/store/admin-store.js';
import { MIGRATIONS } from '../../lib/store/migrations.js';
import { Store } from '../../lib/store/store.js';
import { keyRecord, usageRecord } from './usage-records.js';

const DAY = 86_400_000;

/** The rows the old file holds: [request id, key, organization, cost, created_at]. */
type Row = [requestId: string, key: string, org: string, cost: number, createdAt: number];
const OLD: Row[] = [
  ['req_a1', 'key_a', 'acme', 100, 1 * DAY],
  ['req_a2', 'key_a', 'acme', 200, 3 * DAY],
  ['req_m1', 'key_m', 'acme', 400, 2 * DAY], // key_m belonged to acme then
  ['req_m2', 'key_m', 'beta', 800, 4 * DAY], // and to beta since
  ['req_b1', 'key_b', 'beta', 1600, 5 * DAY],
];

function versionFiveFile(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'migration-usage-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.db');
  const old = new Database(file);
  old.pragma('page_size = 4096');
  old.pragma('journal_mode = WAL');
  for (const sql of MIGRATIONS.slice(0, 5)) old.exec(sql);
  old.pragma('user_version = 5');
  old.exec(`INSERT INTO orgs (id, balance) VALUES ('acme', 100000), ('beta', 100000);
    INSERT INTO keys (id, hash, org) VALUES ('key_a', 'ha', 'acme'), ('key_m', 'hm', 'beta'), ('key_b', 'hb', 'beta'), ('key_c', 'hc', 'acme');`);
  const insert = old.prepare(`INSERT INTO usage (request_id, key_id, org, endpoint, cost, status, latency_ms, created_at) VALUES (?, ?, ?, 'chat', ?, 200, 1, ?)`);
  for (const row of OLD) insert.run(...row);
  old.close();
  return file;
}

t.test('a version-5 file keeps its usage rows, and every read by organization, key and time answers the same rows', async (t) => {
  const store = new Store(`sqlite:${versionFiveFile(t)}`);
  t.teardown(() => store.close());

  // a pair no row had before the upgrade (key_c, acme) and a known one (key_m, beta)
  const c = await store.ledger.reserveSoon({ requestId: 'req_c1', key: keyRecord('key_c', 'acme'), amount: 5000 });
  const m = await store.ledger.reserveSoon({ requestId: 'req_m3', key: keyRecord('key_m', 'beta'), amount: 5000 });
  t.equal(await store.ledger.endSoon(c, usageRecord('req_c1', keyRecord('key_c', 'acme'), 3200), true), true);
  t.equal(await store.ledger.endSoon(m, usageRecord('req_m3', keyRecord('key_m', 'beta'), 6400), true), true);
  const now = Date.now();
  const rows: Row[] = [...OLD, ['req_c1', 'key_c', 'acme', 3200, now], ['req_m3', 'key_m', 'beta', 6400, now]];

  const expected = (f: UsageFilter): { requests: number; cost: number } => {
    const hit = rows.filter(([, key, org, , at]) => (f.org === undefined || org === f.org) && (f.key === undefined || key === f.key) && (f.from === undefined || at >= f.from) && (f.to === undefined || at < f.to));
    return { requests: hit.length, cost: hit.reduce((s, r) => s + r[3], 0) };
  };
  const filters: UsageFilter[] = [
    {}, { org: 'acme' }, { org: 'beta' }, { key: 'key_m' }, { key: 'key_c' }, { org: 'acme', key: 'key_m' }, { org: 'beta', key: 'key_m' },
    { from: 2 * DAY, to: 5 * DAY }, { from: 3 * DAY }, { org: 'beta', from: 4 * DAY }, { key: 'key_m', to: 3 * DAY }, { org: 'nobody' },
  ];
  for (const f of filters) {
    const [sums] = await store.admin.usage(f, null);
    t.match(sums, expected(f), `sums of ${JSON.stringify(f)}`);
  }
  const byKey = await store.admin.usage({ org: 'acme' }, 'key');
  t.same(byKey.map((g) => [g.group, g.cost]), [['key_a', 300], ['key_c', 3200], ['key_m', 400]], 'grouped by key: the moved key\'s rows of acme');

  const recent = await store.admin.requests({ key: 'key_m' }, 10, null);
  t.same(recent.map((r) => r.requestId), ['req_m3', 'req_m2', 'req_m1'], 'the moved key\'s requests in both organizations, newest first');
  t.same(store.ledger.usageFor({ keyId: 'key_m', limit: 10 }).map((r) => r.requestId), ['req_m3', 'req_m2', 'req_m1']);
  t.same(store.ledger.usageFor({ org: 'acme', limit: 2 }).map((r) => r.requestId), ['req_c1', 'req_a2']);
  t.equal(store.ledger.usageFor({ limit: 10 }).length, 7);
});

t.test('the reads by organization, key and time range search the one usage index', async (t) => {
  const store = new Store(`sqlite:${versionFiveFile(t)}`);
  t.teardown(() => store.close());
  const indexes = store.db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'usage' AND sql IS NOT NULL").all();
  t.same(indexes.map((i) => i.name), ['usage_org_time']);
  for (const f of [{ org: 'acme' }, { key: 'key_m' }, { from: DAY, to: 2 * DAY }] as UsageFilter[]) {
    const query = usageSums(f, 'day', 'sqlite').next().value as { sql: string; params: unknown[] };
    const plan = store.db.prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.params).map((r) => r.detail).join(' | ');
    t.match(plan, /SEARCH usage USING INDEX usage_org_time/, JSON.stringify(f));
  }
});
