// A lone answer's hold (`reserveSoon` with `alone`, lib/answers-running.ts) commits before the call
// returns: nothing else could join its batch in this turn, so it does not wait for the turn's end.
// Without `alone` the batch waits for the next turn, so that every request of the turn shares its
// commit.
import t from 'tap';
import { open, record, rid, USD } from './ledger-fixture.js';

t.test('alone, a hold is committed when the call returns; otherwise in the next turn', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  const k = key('k_acme');
  const holdRows = (): number => (store.db.prepare('SELECT COUNT(*) AS n FROM reservations').get() as { n: number }).n;
  const usageRows = (): number => (store.db.prepare('SELECT COUNT(*) AS n FROM usage').get() as { n: number }).n;

  const queued = l.reserveSoon({ requestId: rid(), key: k, amount: USD / 100 });
  t.equal(holdRows(), 0, 'not alone: the hold waits for the batch of the next turn');
  const first = await queued;
  t.equal(holdRows(), 1, 'then it is written');

  const lone = l.reserveSoon({ requestId: rid(), key: k, amount: USD / 100 }, true);
  t.equal(holdRows(), 2, 'alone: the hold is written before reserveSoon returns');
  const second = await lone;
  t.equal(l.balanceOf('acme')!.reserved, (2 * USD) / 100, 'both holds counted');

  // a lone hold that finds a batch already queued in this turn joins it (one commit for both)
  const queuedHold = l.reserveSoon({ requestId: rid(), key: k, amount: USD / 100 });
  const loneHold = l.reserveSoon({ requestId: rid(), key: k, amount: USD / 100 }, true);
  t.equal(holdRows(), 2, 'joined the queued batch: nothing more written yet');
  const [third, fourth] = await Promise.all([queuedHold, loneHold]);
  t.equal(holdRows(), 4, 'both holds committed together');
  for (const r of [first, second, third, fourth]) t.equal(await l.endSoon(r, record(r, k, USD / 1000), true), true);
  t.equal(usageRows(), 4, 'every end committed');
  t.equal(l.balanceOf('acme')!.reserved, 0);
  store.close();
});
