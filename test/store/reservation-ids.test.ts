// Reservation ids sort by the time the hold was taken (lib/ids.ts), on SQLite, or on PostgreSQL
// under `npm run test:postgres`: each hold's row then goes at the end of the reservations table's
// key, where one batch's holds share a page, instead of on a random page each.
import t from 'tap';
import { openAny, rid } from './ledger-fixture.js';

const RESERVATION_ID = /^res_[0-9a-f]{32}$/;

t.test('holds taken one after another have ids that start with their time, in order', async (t) => {
  const { store, key } = await openAny();
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const before = Date.now();
    const batched = await Promise.all([0, 1].map(() => store.ledger.reserveSoon({ requestId: rid(), key: key('k_key'), amount: 1000 })));
    const alone = await store.ledger.reserve({ requestId: rid(), key: key('k_key'), amount: 1000 });
    const after = Date.now();
    for (const { id } of [...batched, alone]) {
      t.match(id, RESERVATION_ID);
      const at = parseInt(id.slice(4, 16), 16);
      t.ok(at >= before && at <= after, `the id's time ${at} is within [${before}, ${after}]`);
    }
    ids.push(alone.id);
    await new Promise((r) => setTimeout(r, 2)); // the next ones in a later millisecond
  }
  t.same([...ids].sort(), ids, 'in the order they were taken');
  t.equal(await store.ledger.openReservations(), 12);
  await store.close();
});
