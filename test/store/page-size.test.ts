// A database file the gateway creates has 2 KB pages (migrations.ts, NEW_FILE_PAGE_SIZE: fewer
// bytes written to the WAL per ledger commit); a file an older gateway wrote with 4 KB pages is not
// converted: it opens with its data, keeps its page size, and takes holds and settles as before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { MIGRATIONS } from '../../lib/store/migrations.js';
import { Store } from '../../lib/store/store.js';
import type { KeyRecord, UsageRecord } from '../../lib/store/types.js';

function tempFile(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'page-size-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'gateway.db');
}

const pageSize = (file: string): number => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
};

const key: KeyRecord = { id: 'key_acme', org: 'acme', project: null, environment: null, scopes: [], models: [], spendCap: null, rateLimit: { rpm: null, tpm: null } };

function record(requestId: string, cost: number): UsageRecord {
  return {
    requestId, keyId: 'key_acme', org: 'acme', project: null, environment: null, endpoint: 'chat', modelRequested: 'm', modelServed: 'm',
    provider: 'sim', inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, webSearches: 0,
    audioSeconds: null, cost, callName: null, endUserId: null, status: 200, errorCode: null, latencyMs: 1,
  };
}

t.test('a new database file has 2 KB pages and works', async (t) => {
  const file = tempFile(t);
  const store = new Store(`sqlite:${file}`);
  store.db.prepare("INSERT INTO orgs (id, balance) VALUES ('acme', 10000)").run();
  store.db.prepare("INSERT INTO keys (id, hash, org) VALUES ('key_acme', 'h', 'acme')").run();
  const hold = await store.ledger.reserveSoon({ requestId: 'req_1', key, amount: 300 });
  t.equal(await store.ledger.endSoon(hold, record('req_1', 120), true), true);
  store.close();
  t.equal(pageSize(file), 2048);
  const again = new Store(`sqlite:${file}`, { mustExist: true });
  t.teardown(() => again.close());
  t.same(again.ledger.balanceOf('acme'), { balance: 9880, reserved: 0, spent: 120, spendCap: null });
  t.match(again.ledger.usageFor({ limit: 5 }), [{ requestId: 'req_1', cost: 120 }]);
});

t.test('a 4 KB file written by an older gateway keeps its pages, its data and its open holds, and works', async (t) => {
  const file = tempFile(t);
  const old = new Database(file);
  old.pragma('page_size = 4096');
  old.pragma('journal_mode = WAL');
  for (const sql of MIGRATIONS) old.exec(sql);
  old.pragma(`user_version = ${MIGRATIONS.length}`);
  old.prepare("INSERT INTO orgs (id, balance, reserved, spent) VALUES ('acme', 10000, 700, 500)").run();
  old.prepare("INSERT INTO keys (id, hash, org, reserved, spent) VALUES ('key_acme', 'h', 'acme', 700, 500)").run();
  old.prepare(`INSERT INTO reservations (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
    VALUES ('res_old', 'req_old', 'key_acme', 'acme', NULL, NULL, 700, 'boot_of_a_dead_process', 0)`).run();
  const usage = old.prepare(`INSERT INTO usage (request_id, key_id, org, endpoint, cost, status, latency_ms, created_at) VALUES (?, 'key_acme', 'acme', 'chat', ?, 200, 1, ?)`);
  for (let i = 0; i < 500; i++) usage.run(`req_${String(i).padStart(4, '0')}`, 1, i);
  old.close();

  const store = new Store(`sqlite:${file}`);
  t.teardown(() => store.close());
  t.equal(store.db.pragma('page_size', { simple: true }), 4096, 'not converted');
  t.same(store.db.prepare('SELECT count(*) AS n FROM usage').get(), { n: 500 }, 'the usage rows are all there');
  t.equal(store.releaseStale(), 1, 'the open hold of a dead process is released');
  const hold = await store.ledger.reserveSoon({ requestId: 'req_new', key, amount: 300 });
  t.equal(await store.ledger.endSoon(hold, record('req_new', 120), true), true);
  t.same(store.ledger.balanceOf('acme'), { balance: 9880, reserved: 0, spent: 620, spendCap: null });
  t.match(store.ledger.usageFor({ keyId: 'key_acme', limit: 2 }), [{ requestId: 'req_new', cost: 120 }, { requestId: 'req_0499' }]);
});
