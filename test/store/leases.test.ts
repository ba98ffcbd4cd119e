// Leases (lib/store/lease.ts) on either store (SQLite file, or PostgreSQL under
// `npm run test:postgres`): a sweep releases the holds of an owner whose lease expired or ended,
// never those of an owner whose lease is current, and a lapsed lease is reported at its renewal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openAny, rid, sharedStoreUrl, USD } from './ledger-fixture.js';
import { sleep } from '../helpers/billing.js';

t.test('a sweep releases the holds of expired or ended leases only', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lease-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const url = sharedStoreUrl(dir);
  const a = await openAny(url);
  const b = await openAny(url);
  const c = await openAny(url);
  t.teardown(async () => {
    for (const s of [a, b, c]) await s.store.close();
  });
  t.equal(await a.store.renewLease(300), true, 'a takes a short lease');
  t.equal(await b.store.renewLease(60_000), true, 'b a long one');
  await c.store.renewLease(60_000);
  await a.store.ledger.reserve({ requestId: rid(), key: a.key('k_acme'), amount: USD });
  await b.store.ledger.reserve({ requestId: rid(), key: b.key('k_acme'), amount: 2 * USD });
  t.equal(await c.store.releaseStale(), 0, 'both owners are alive: nothing released');
  t.equal((await c.store.ledger.balanceOf('acme'))!.reserved, 3 * USD);

  await sleep(450);
  t.equal(await c.store.releaseStale(), 1, "a's lease expired: its hold is released");
  t.equal((await c.store.ledger.balanceOf('acme'))!.reserved, 2 * USD, "b's hold stays");
  t.equal(await a.store.renewLease(300), false, 'a learns at its next renewal that its lease had lapsed');

  await b.store.endLease();
  t.equal(await c.store.releaseStale(), 1, "b ended its lease (a clean shutdown): what it still held is released at once");
  t.equal(await c.store.ledger.openReservations(), 0);
  t.same(await c.store.ledger.balanceOf('acme'), { balance: 100 * USD, reserved: 0, spent: 0, spendCap: null });
});
