// Migration 5 (SQLite) rebuilds the reservations table: a file written by an older gateway, with
// holds still open when it stopped, keeps them through the migration, so the stale sweep still gives
// their credits back, and the migrated table takes new holds and their ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { MIGRATIONS } from '../../lib/store/migrations.js';
import { Store } from '../../lib/store/store.js';

t.test('holds open in a version-3 file survive the migration and are released by the sweep', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'migration-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.db');
  const old = new Database(file);
  for (const sql of MIGRATIONS.slice(0, 3)) old.exec(sql);
  old.pragma('user_version = 3');
  old.prepare('INSERT INTO orgs (id, balance, reserved) VALUES (?, ?, ?)').run('acme', 5_000, 1_200);
  const hold = old.prepare(`INSERT INTO reservations (id, request_id, key_id, org, project, environment, amount, boot_id, created_at)
    VALUES (?, ?, 'k_gone', 'acme', NULL, NULL, ?, 'boot_of_a_dead_process', 0)`);
  hold.run('res_a', 'req_a', 700);
  hold.run('res_b', 'req_b', 500);
  old.close();

  const store = new Store(`sqlite:${file}`);
  t.teardown(() => store.close());
  t.equal(store.ledger.openReservations(), 2, 'both holds are still there after the migration');
  t.equal(store.releaseStale(), 2, 'the sweep releases the holds of an owner with no lease');
  t.same(store.ledger.balanceOf('acme'), { balance: 5_000, reserved: 0, spent: 0, spendCap: null }, 'their credits are available again');
  t.equal(store.ledger.openReservations(), 0);
});
