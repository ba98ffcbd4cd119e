// The batched ledger decides exactly as the one-by-one ledger (lib/store/ledger-batch.ts): a random
// mix of holds and ends, batched on one store and run one at a time on another, gives the same
// decisions, the same refusals and the same counters, round after round.
import t from 'tap';
import type { GatewayError } from '../../lib/errors.js';
import type { Reservation } from '../../lib/store/types.js';
import { allCounters, open, outcome, record, rid, USD } from './ledger-fixture.js';

const D = USD / 10; // $0.10

t.test('batched = one by one: same decisions, same refusals, same counters (random mix)', async (t) => {
  const batched = open();
  const single = open();
  let seed = 7;
  const rand = (m: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * m); // the high bits: the low ones of this generator cycle
  };
  const keyIds = ['k_key', 'k_env', 'k_proj', 'k_org', 'k_poor'];
  const open_: { b: Reservation; s: Reservation; k: string }[] = [];
  const tally: Record<string, number> = {};
  for (let round = 0; round < 60; round++) {
    if (round % 5 === 4) {
      // raise the caps and add credits between batches, on both files
      for (const s of [batched.store, single.store]) {
        for (const [table, usd] of [['orgs', 2.5], ['projects', 2], ['environments', 1.5], ['keys', 1]] as const)
          s.db.exec(`UPDATE ${table} SET spend_cap = spend_cap + ${usd * USD} WHERE spend_cap IS NOT NULL`);
        s.ledger.addCredits('poor', USD / 100, 'top-up');
      }
    }
    type Step = { kind: 'hold'; k: string; amount: number } | { kind: 'end'; i: number; cost: number; charge: boolean };
    const steps: Step[] = [];
    for (let n = rand(14) + 1; n > 0; n--) {
      if (rand(2) === 0 || open_.length === 0) {
        const k = keyIds[rand(keyIds.length)]!;
        steps.push({ kind: 'hold', k, amount: k === 'k_poor' ? rand(USD / 200) : rand(12 * D) + 1 });
      } else {
        const i = rand(open_.length); // may end the same hold twice in one batch
        const r = open_[i]!.b;
        steps.push({ kind: 'end', i, cost: rand(10) === 0 ? r.amount + rand(D) : rand(r.amount + 1), charge: rand(4) !== 0 });
      }
    }
    const results = await Promise.allSettled(
      steps.map((st): Promise<Reservation | boolean> => {
        if (st.kind === 'hold') return batched.store.ledger.reserveSoon({ requestId: rid(), key: batched.key(st.k), amount: st.amount });
        const { b, k } = open_[st.i]!;
        return batched.store.ledger.endSoon(b, record(b, batched.key(k), st.cost), st.charge);
      }),
    );
    const expected = steps.map((st): PromiseSettledResult<Reservation | boolean> => {
      try {
        if (st.kind === 'hold') return { status: 'fulfilled', value: single.store.ledger.reserve({ requestId: rid(), key: single.key(st.k), amount: st.amount }) };
        const { s, k } = open_[st.i]!;
        const rec = record(s, single.key(k), st.cost);
        return { status: 'fulfilled', value: st.charge ? single.store.ledger.settle(s, rec) : single.store.ledger.release(s, rec) };
      } catch (reason) {
        return { status: 'rejected', reason };
      }
    });
    t.same(results.map(outcome), expected.map(outcome), `round ${round}: same outcomes`);
    for (const r of results) {
      const what = r.status === 'rejected' ? String((r.reason as GatewayError).param ?? 'credits') : typeof r.value === 'boolean' ? `ended ${r.value}` : 'held';
      tally[what] = (tally[what] ?? 0) + 1;
    }
    const ended = new Set(steps.flatMap((st) => (st.kind === 'end' ? [st.i] : [])));
    const kept = open_.filter((_, i) => !ended.has(i));
    steps.forEach((st, i) => {
      const r = results[i]!;
      const e = expected[i]!;
      if (st.kind === 'hold' && r.status === 'fulfilled' && e.status === 'fulfilled') kept.push({ b: r.value as Reservation, s: e.value as Reservation, k: st.k });
    });
    open_.splice(0, open_.length, ...kept);
    t.same(allCounters(batched.store), allCounters(single.store), `round ${round}: same counters`);
  }
  t.comment(JSON.stringify(tally));
  t.ok((tally['ended true'] ?? 0) > 100, 'many holds ended');
  for (const refusal of ['credits', 'key', 'environment', 'project', 'organization']) t.ok(tally[refusal], `refused on ${refusal}`);
  batched.store.close();
  single.store.close();
});
