// Processes starting together on one new store (a rolling restart, bin/gateway --workers) migrate
// and seed it once, one at a time: none fails, the initial credits are granted once. On SQLite each
// migration and the seed are write (IMMEDIATE) transactions that read the version again; before,
// two processes both saw version 0 and the second failed with "table orgs already exists" or
// "database is locked". On PostgreSQL (test:postgres), advisory locks do the same.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { sharedStoreUrl } from './ledger-fixture.js';
import { LedgerView } from '../helpers/billing.js';
import { ROOT } from '../helpers/paths.js';

const CHILD = join(ROOT, 'dist/test/helpers/open-store-child.js');

function start(url: string): Promise<{ code: number | null; out: string }> {
  const child = fork(CHILD, [url], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], execArgv: [] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

t.test('four processes open and seed one new store at once', async (t) => {
  const failures: string[] = [];
  for (let round = 0; round < 8; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'gw-shared-start-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const url = sharedStoreUrl(dir);
    const results = await Promise.all([0, 1, 2, 3].map(() => start(url)));
    for (const r of results) if (r.code !== 0) failures.push(r.out.trim());
    const view = new LedgerView(url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url);
    if (view.credited('acme') !== 1_000_000_000) failures.push(`round ${round}: credits granted ${view.credited('acme')} units`);
    view.close();
  }
  t.same(failures, [], 'every process started; the initial credits were granted once');
});
