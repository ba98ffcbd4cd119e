import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { GatewayError } from '../../lib/errors.js';
import type { Store } from '../../lib/store/store.js';
import type { KeyRecord, Reservation } from '../../lib/store/types.js';
import { open, record, rid, USD } from './ledger-fixture.js';

function refusal(t: Test, fn: () => unknown, code: string, param?: string): GatewayError | null {
  try {
    fn();
  } catch (err) {
    t.ok(GatewayError.is(err), 'a GatewayError');
    const e = err as GatewayError;
    t.equal(e.code, code);
    t.equal(e.status, 402);
    if (param !== undefined) t.equal(e.param, param);
    return e;
  }
  t.fail(`expected ${code}`);
  return null;
}

function levelRow(store: Store, table: string, where: string, ...args: string[]): { spent: number; reserved: number } {
  return store.db.prepare<string[], { spent: number; reserved: number }>(`SELECT spent, reserved FROM ${table} WHERE ${where}`).get(...args)!;
}

t.test('insufficient credits: 402 naming the balance and the amount', async (t) => {
  const { store, key } = open();
  const e = refusal(t, () => store.ledger.reserve({ requestId: rid(), key: key('k_poor'), amount: 20_000_000 }), 'GW_ERR_CREDITS_INSUFFICIENT');
  t.match(e?.message, /\$0\.01 available/);
  t.match(e?.message, /up to \$0\.02/);
  refusal(t, () => store.ledger.reserve({ requestId: rid(), key: key('k_broke'), amount: 0 }), 'GW_ERR_CREDITS_INSUFFICIENT');
  const r = store.ledger.reserve({ requestId: rid(), key: key('k_poor'), amount: 10_000_000 });
  t.equal(r.amount, 10_000_000, 'the whole balance may be held');
  refusal(t, () => store.ledger.reserve({ requestId: rid(), key: key('k_poor'), amount: 1 }), 'GW_ERR_CREDITS_INSUFFICIENT');
  t.equal(store.ledger.openReservations(), 1);
  store.close();
});

t.test('spend caps at every level, with the level in param', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  const k = refusal(t, () => l.reserve({ requestId: rid(), key: key('k_key'), amount: 2.5 * USD }), 'GW_ERR_SPEND_CAP_EXCEEDED', 'key');
  t.match(k?.message, /spend cap of the key k_key reached \(cap \$2\.00, spent \$0\.00, this request may cost up to \$2\.50\)/i);
  const e = refusal(t, () => l.reserve({ requestId: rid(), key: key('k_env'), amount: 3.5 * USD }), 'GW_ERR_SPEND_CAP_EXCEEDED', 'environment');
  t.match(e?.message, /environment e of project p/);
  refusal(t, () => l.reserve({ requestId: rid(), key: key('k_proj'), amount: 4.5 * USD }), 'GW_ERR_SPEND_CAP_EXCEEDED', 'project');
  const o = refusal(t, () => l.reserve({ requestId: rid(), key: key('k_org'), amount: 5.5 * USD }), 'GW_ERR_SPEND_CAP_EXCEEDED', 'organization');
  t.match(o?.message, /organization capped/);
  t.equal(l.openReservations(), 0, 'nothing held after refusals');

  // spent + reserved + amount ≤ cap, at the cap exactly is allowed
  const kk = key('k_key');
  const a = l.reserve({ requestId: rid(), key: kk, amount: 1.5 * USD });
  const held = refusal(t, () => l.reserve({ requestId: rid(), key: kk, amount: 0.6 * USD }), 'GW_ERR_SPEND_CAP_EXCEEDED', 'key');
  t.match(held?.message, /\$1\.50 held by requests in progress/);
  t.ok(l.settle(a, record(a, kk, 1 * USD)));
  refusal(t, () => l.reserve({ requestId: rid(), key: kk, amount: 1.1 * USD }), 'GW_ERR_SPEND_CAP_EXCEEDED', 'key');
  const b = l.reserve({ requestId: rid(), key: kk, amount: 1 * USD });
  t.ok(l.release(b));
  // the key's spending counts at its environment, project and organization too
  t.same(levelRow(store, 'environments', "org = 'capped' AND project = 'p' AND id = 'e'"), { spent: USD, reserved: 0 });
  t.same(levelRow(store, 'projects', "org = 'capped' AND id = 'p'"), { spent: USD, reserved: 0 });
  refusal(t, () => l.reserve({ requestId: rid(), key: key('k_env'), amount: 2.5 * USD }), 'GW_ERR_SPEND_CAP_EXCEEDED', 'environment');
  t.ok(l.reserve({ requestId: rid(), key: key('k_org'), amount: 4 * USD }), 'org level: 1 spent + 4 = cap');
  store.close();
});

t.test('settle and release: exactly one takes effect', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  const k = key('k_acme');
  const r = l.reserve({ requestId: rid(), key: k, amount: 2 * USD });
  t.same(l.balanceOf('acme'), { balance: 100 * USD, reserved: 2 * USD, spent: 0, spendCap: null });
  t.equal(l.settle(r, record(r, k, 0.75 * USD)), true);
  t.equal(l.settle(r, record(r, k, 0.75 * USD)), false, 'second settle does nothing');
  t.equal(l.release(r, record(r, k, 0)), false, 'release after settle does nothing');
  t.same(l.balanceOf('acme'), { balance: 99.25 * USD, reserved: 0, spent: 0.75 * USD, spendCap: null });
  const rows = l.usageFor({ org: 'acme', limit: 10 });
  t.equal(rows.length, 1);
  t.match(rows[0], { ...record(r, k, 0.75 * USD) });

  const s = l.reserve({ requestId: rid(), key: k, amount: USD });
  t.equal(l.release(s, record(s, k, 0.5 * USD)), true);
  t.equal(l.settle(s, record(s, k, 0.5 * USD)), false, 'settle after release does nothing');
  t.same(l.balanceOf('acme'), { balance: 99.25 * USD, reserved: 0, spent: 0.75 * USD, spendCap: null });
  const released = l.usageFor({ keyId: 'k_acme', limit: 1 })[0]!;
  t.equal(released.requestId, s.requestId, 'newest first');
  t.equal(released.cost, 0, 'a released request is recorded at cost 0');
  t.equal(l.openReservations(), 0);
  t.throws(() => l.settle(l.reserve({ requestId: rid(), key: k, amount: 1 }), record(s, k, 0.5)), TypeError, 'a fractional cost is a programming error');
  store.close();
});

t.test('an overrun is charged in full', async (t) => {
  const { store, key } = open();
  const k = key('k_poor');
  const r = store.ledger.reserve({ requestId: rid(), key: k, amount: 5_000_000 });
  store.ledger.settle(r, record(r, k, 15_000_000));
  t.same(store.ledger.balanceOf('poor'), { balance: -5_000_000, reserved: 0, spent: 15_000_000, spendCap: null });
  refusal(t, () => store.ledger.reserve({ requestId: rid(), key: k, amount: 0 }), 'GW_ERR_CREDITS_INSUFFICIENT');
  store.close();
});

t.test('credits: add, events, unknown org', async (t) => {
  const { store } = open();
  t.equal(store.ledger.addCredits('broke', 3 * USD, 'top-up'), 3 * USD);
  t.equal(store.ledger.addCredits('broke', -1 * USD, 'correction'), 2 * USD);
  const events = store.db.prepare<[], { amount: number; reason: string }>("SELECT amount, reason FROM credit_events WHERE org = 'broke' ORDER BY seq").all();
  t.same(events, [
    { amount: 3 * USD, reason: 'top-up' },
    { amount: -1 * USD, reason: 'correction' },
  ]);
  t.throws(() => store.ledger.addCredits('nobody', USD, 'x'), /unknown organization/);
  t.throws(() => store.ledger.addCredits('broke', 0.5, 'x'), TypeError);
  t.same(store.ledger.orgIds(), ['acme', 'broke', 'capped', 'poor']);
  t.equal(store.ledger.balanceOf('nobody'), null);
  store.close();
});

t.test('two processes on one file: holds never exceed the balance; stale holds are released at start', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const url = `sqlite:${join(dir, 'gateway.db')}`;
  const a = open(url);
  const b = open(url);
  t.not(a.store.bootId, b.store.bootId);
  // interleave reserves from both connections until the organization's balance is exhausted
  const held: { store: Store; r: Reservation }[] = [];
  let refused = 0;
  let sum = 0;
  for (let i = 0; i < 400; i++) {
    const side = i % 2 === 0 ? a : b;
    const amount = ((i * 7919) % 97) * 10_000_000 + 1;
    try {
      held.push({ store: side.store, r: side.store.ledger.reserve({ requestId: rid(), key: side.key('k_acme'), amount }) });
      sum += amount;
    } catch (err) {
      t.equal((err as GatewayError).code, 'GW_ERR_CREDITS_INSUFFICIENT');
      refused++;
    }
    const bal = a.store.ledger.balanceOf('acme')!;
    if (bal.reserved > bal.balance) t.fail('reserved above the balance');
  }
  t.ok(refused > 0, 'the balance ran out');
  t.equal(a.store.ledger.balanceOf('acme')!.reserved, sum, 'every hold is counted once');
  t.ok(sum <= 100 * USD);

  // both processes "crash"; the next start releases every hold of another boot, never its own
  a.store.close();
  b.store.close();
  const c = open(url);
  const own = c.store.ledger.reserve({ requestId: rid(), key: c.key('k_acme'), amount: 1 });
  t.equal(c.store.ledger.releaseStale(), held.length, 'every reservation of another boot');
  t.equal(c.store.ledger.releaseStale(), 0, 'and only once');
  t.equal(c.store.ledger.openReservations(), 1, 'its own reservation stays');
  t.same(c.store.ledger.balanceOf('acme'), { balance: 100 * USD, reserved: 1, spent: 0, spendCap: null });
  const k = c.key('k_acme');
  const late = held[0]!.r;
  t.equal(c.store.ledger.settle(late, record(late, k, 1)), false, 'a released hold cannot be settled later');
  t.ok(c.store.ledger.settle(own, record(own, k, 1)));
  t.same(c.store.ledger.balanceOf('acme'), { balance: 100 * USD - 1, reserved: 0, spent: 1, spendCap: null });
  c.store.close();
});

t.test('after a random mix, granted credits = balance + spent, and every level adds up', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  const keys = ['k_key', 'k_env', 'k_proj', 'k_org'].map(key);
  let seed = 42;
  const rand = (m: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % m;
  };
  const open_: { r: Reservation; k: KeyRecord }[] = [];
  let outcomes = 0;
  for (let i = 0; i < 3000; i++) {
    const op = rand(10);
    if (op < 5 || open_.length === 0) {
      const k = keys[rand(keys.length)]!;
      try {
        open_.push({ r: l.reserve({ requestId: rid(), key: k, amount: rand(20_000_000) + 1 }), k });
      } catch (err) {
        if ((err as GatewayError).status !== 402) throw err;
      }
    } else {
      const { r, k } = open_.splice(rand(open_.length), 1)[0]!;
      // mostly under the hold, sometimes an overrun
      const cost = op === 9 ? r.amount + rand(1000) : rand(r.amount + 1);
      const took = op >= 7 ? l.release(r, record(r, k, cost)) : l.settle(r, record(r, k, cost));
      if (took) outcomes++;
      if (rand(5) === 0) l.settle(r, record(r, k, cost)); // duplicate: must do nothing
    }
  }
  for (const { r } of open_) l.release(r);
  t.ok(outcomes > 100, `${outcomes} reservations ended`);
  const granted = store.db.prepare<[], { s: number }>("SELECT SUM(amount) AS s FROM credit_events WHERE org = 'capped'").get()!.s;
  const bal = l.balanceOf('capped')!;
  t.equal(bal.reserved, 0);
  t.equal(bal.balance + bal.spent, granted, 'no unit created or lost');
  const usage = (where: string): number => store.db.prepare<[], { s: number | null }>(`SELECT SUM(cost) AS s FROM usage WHERE ${where}`).get()!.s ?? 0;
  t.equal(bal.spent, usage("org = 'capped'"));
  t.equal(levelRow(store, 'projects', "org = 'capped' AND id = 'p'").spent, usage("org = 'capped' AND project = 'p'"));
  t.equal(levelRow(store, 'environments', "org = 'capped' AND id = 'e'").spent, usage("org = 'capped' AND environment = 'e'"));
  for (const k of keys) t.same(levelRow(store, 'keys', 'id = ?', k.id), { spent: usage(`key_id = '${k.id}'`), reserved: 0 });
  store.close();
});
