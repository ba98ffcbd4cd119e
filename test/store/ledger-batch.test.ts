// The batched ledger calls the gateway uses (reserveSoon / endSoon): one transaction per event-loop
// turn, each hold still decided alone and in order. On SQLite, or on PostgreSQL under
// `npm run test:postgres` (there a batch is one call of gateway_batch).
import t from 'tap';
import type { GatewayError } from '../../lib/errors.js';
import { openAny, record, rid, USD } from './ledger-fixture.js';

t.test('batched holds and ends: one commit per turn, each hold decided in order, a refusal spoils nothing', async (t) => {
  const opened = await openAny();
  const { store, key } = opened;
  const l = store.ledger;
  const poor = key('k_poor'); // $0.01
  const cent = USD / 100;
  // read synchronously (psql on PostgreSQL): nothing of this turn's batch can have run in between
  const holdRows = (): number => Number(opened.rows<{ n: number }>('SELECT COUNT(*) AS n FROM reservations')[0]!.n);
  // five holds of 0.4 cent queued in one turn: the first two fit, the third is refused, the rest too
  const holds = Array.from({ length: 5 }, () => l.reserveSoon({ requestId: rid(), key: poor, amount: (cent * 4) / 10 }));
  t.equal(holdRows(), 0, 'nothing is written before the batch runs');
  const settled = await Promise.allSettled(holds);
  t.same(
    settled.map((s) => s.status),
    ['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected'],
  );
  for (const s of settled) if (s.status === 'rejected') t.equal((s.reason as GatewayError).code, 'GW_ERR_CREDITS_INSUFFICIENT');
  t.equal(holdRows(), 2, 'the granted holds are on disk once the promises resolve');
  t.equal((await l.balanceOf('poor'))!.reserved, (cent * 8) / 10);
  // ending one and holding again in the same turn: the end runs first (queue order), so the hold fits
  const [a, b] = settled.map((s) => (s.status === 'fulfilled' ? s.value : null));
  const ended = l.endSoon(a!, record(a!, poor, cent / 10), true);
  const again = l.reserveSoon({ requestId: rid(), key: poor, amount: (cent * 4) / 10 });
  t.equal(await ended, true);
  const c = await again;
  t.equal(await l.endSoon(a!, record(a!, poor, cent / 10), true), false, 'a second end of the same hold does nothing');
  await Promise.all([l.endSoon(b!, record(b!, poor, 0), false), l.endSoon(c, record(c, poor, 0), false)]);
  const bal = (await l.balanceOf('poor'))!;
  t.same({ reserved: bal.reserved, spent: bal.spent, balance: bal.balance }, { reserved: 0, spent: cent / 10, balance: cent - cent / 10 });
  t.equal(await l.openReservations(), 0);
  await store.close();
});
