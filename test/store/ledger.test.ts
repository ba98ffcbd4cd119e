// The credit ledger's rules, on SQLite, or on PostgreSQL under `npm run test:postgres`
// (GATEWAY_TEST_STORE=postgres): the same calls, awaited (immediate on SQLite, promises on PostgreSQL).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { GatewayError } from '../../lib/errors.js';
import type { GatewayStore } from '../../lib/store/store-api.js';
import type { KeyRecord, Reservation } from '../../lib/store/types.js';
import { openAny, record, rid, sharedStoreUrl, USD, type AnyStore } from './ledger-fixture.js';

async function refusal(t: Test, fn: () => unknown, code: string, param?: string): Promise<GatewayError | null> {
  try {
    await fn();
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

function levelRow(s: AnyStore, table: string, where: string): { spent: number; reserved: number } {
  return s.rows<{ spent: number; reserved: number }>(`SELECT spent, reserved FROM ${table} WHERE ${where}`)[0]!;
}

t.test('insufficient credits: 402 naming the balance and the amount', async (t) => {
  const opened = await openAny();
  const { store, key } = opened;
  const e = await refusal(t, async () => (await store.ledger.reserve({ requestId: rid(), key: key('k_poor'), amount: 20_000_000 })), 'GW_ERR_CREDITS_INSUFFICIENT');
  t.match(e?.message, /\$0\.01 available/);
  t.match(e?.message, /up to \$0\.02/);
  await refusal(t, async () => (await store.ledger.reserve({ requestId: rid(), key: key('k_broke'), amount: 0 })), 'GW_ERR_CREDITS_INSUFFICIENT');
  const r = (await store.ledger.reserve({ requestId: rid(), key: key('k_poor'), amount: 10_000_000 }));
  t.equal(r.amount, 10_000_000, 'the whole balance may be held');
  await refusal(t, async () => (await store.ledger.reserve({ requestId: rid(), key: key('k_poor'), amount: 1 })), 'GW_ERR_CREDITS_INSUFFICIENT');
  t.equal((await store.ledger.openReservations()), 1);
  await store.close();
});

t.test('spend caps at every level, with the level in param', async (t) => {
  const opened = await openAny();
  const { store, key } = opened;
  const l = store.ledger;
  const k = await refusal(t, async () => (await l.reserve({ requestId: rid(), key: key('k_key'), amount: 2.5 * USD })), 'GW_ERR_SPEND_CAP_EXCEEDED', 'key');
  t.match(k?.message, /spend cap of the key k_key reached \(cap \$2\.00, spent \$0\.00, this request may cost up to \$2\.50\)/i);
  const e = await refusal(t, async () => (await l.reserve({ requestId: rid(), key: key('k_env'), amount: 3.5 * USD })), 'GW_ERR_SPEND_CAP_EXCEEDED', 'environment');
  t.match(e?.message, /environment e of project p/);
  await refusal(t, async () => (await l.reserve({ requestId: rid(), key: key('k_proj'), amount: 4.5 * USD })), 'GW_ERR_SPEND_CAP_EXCEEDED', 'project');
  const o = await refusal(t, async () => (await l.reserve({ requestId: rid(), key: key('k_org'), amount: 5.5 * USD })), 'GW_ERR_SPEND_CAP_EXCEEDED', 'organization');
  t.match(o?.message, /organization capped/);
  t.equal((await l.openReservations()), 0, 'nothing held after refusals');

  // spent + reserved + amount ≤ cap, at the cap exactly is allowed
  const kk = key('k_key');
  const a = (await l.reserve({ requestId: rid(), key: kk, amount: 1.5 * USD }));
  const held = await refusal(t, async () => (await l.reserve({ requestId: rid(), key: kk, amount: 0.6 * USD })), 'GW_ERR_SPEND_CAP_EXCEEDED', 'key');
  t.match(held?.message, /\$1\.50 held by requests in progress/);
  t.ok((await l.settle(a, record(a, kk, 1 * USD))));
  await refusal(t, async () => (await l.reserve({ requestId: rid(), key: kk, amount: 1.1 * USD })), 'GW_ERR_SPEND_CAP_EXCEEDED', 'key');
  const b = (await l.reserve({ requestId: rid(), key: kk, amount: 1 * USD }));
  t.ok((await l.release(b)));
  // the key's spending counts at its environment, project and organization too
  t.same(levelRow(opened, 'environments', "org = 'capped' AND project = 'p' AND id = 'e'"), { spent: USD, reserved: 0 });
  t.same(levelRow(opened, 'projects', "org = 'capped' AND id = 'p'"), { spent: USD, reserved: 0 });
  await refusal(t, async () => (await l.reserve({ requestId: rid(), key: key('k_env'), amount: 2.5 * USD })), 'GW_ERR_SPEND_CAP_EXCEEDED', 'environment');
  t.ok((await l.reserve({ requestId: rid(), key: key('k_org'), amount: 4 * USD })), 'org level: 1 spent + 4 = cap');
  await store.close();
});

t.test('settle and release: exactly one takes effect', async (t) => {
  const opened = await openAny();
  const { store, key } = opened;
  const l = store.ledger;
  const k = key('k_acme');
  const r = (await l.reserve({ requestId: rid(), key: k, amount: 2 * USD }));
  t.same((await l.balanceOf('acme')), { balance: 100 * USD, reserved: 2 * USD, spent: 0, spendCap: null });
  t.equal((await l.settle(r, record(r, k, 0.75 * USD))), true);
  t.equal((await l.settle(r, record(r, k, 0.75 * USD))), false, 'second settle does nothing');
  t.equal((await l.release(r, record(r, k, 0))), false, 'release after settle does nothing');
  t.same((await l.balanceOf('acme')), { balance: 99.25 * USD, reserved: 0, spent: 0.75 * USD, spendCap: null });
  const rows = (await l.usageFor({ org: 'acme', limit: 10 }));
  t.equal(rows.length, 1);
  t.match(rows[0], { ...record(r, k, 0.75 * USD) });

  const s = (await l.reserve({ requestId: rid(), key: k, amount: USD }));
  t.equal((await l.release(s, record(s, k, 0.5 * USD))), true);
  t.equal((await l.settle(s, record(s, k, 0.5 * USD))), false, 'settle after release does nothing');
  t.same((await l.balanceOf('acme')), { balance: 99.25 * USD, reserved: 0, spent: 0.75 * USD, spendCap: null });
  const released = (await l.usageFor({ keyId: 'k_acme', limit: 1 }))[0]!;
  t.equal(released.requestId, s.requestId, 'newest first');
  t.equal(released.cost, 0, 'a released request is recorded at cost 0');
  t.equal((await l.openReservations()), 0);
  const tiny = await l.reserve({ requestId: rid(), key: k, amount: 1 });
  await t.rejects(async () => l.settle(tiny, record(s, k, 0.5)), { name: 'TypeError' }, 'a fractional cost is a programming error');
  await store.close();
});

t.test('an overrun is charged in full', async (t) => {
  const opened = await openAny();
  const { store, key } = opened;
  const k = key('k_poor');
  const r = (await store.ledger.reserve({ requestId: rid(), key: k, amount: 5_000_000 }));
  await store.ledger.settle(r, record(r, k, 15_000_000));
  t.same((await store.ledger.balanceOf('poor')), { balance: -5_000_000, reserved: 0, spent: 15_000_000, spendCap: null });
  await refusal(t, async () => (await store.ledger.reserve({ requestId: rid(), key: k, amount: 0 })), 'GW_ERR_CREDITS_INSUFFICIENT');
  await store.close();
});

t.test('credits: add, events, unknown org', async (t) => {
  const opened = await openAny();
  const { store } = opened;
  t.equal((await store.ledger.addCredits('broke', 3 * USD, 'top-up')), 3 * USD);
  t.equal((await store.ledger.addCredits('broke', -1 * USD, 'correction')), 2 * USD);
  const events = opened.rows<{ amount: number; reason: string }>("SELECT amount, reason FROM credit_events WHERE org = 'broke' ORDER BY seq");
  t.same(events, [
    { amount: 3 * USD, reason: 'top-up' },
    { amount: -1 * USD, reason: 'correction' },
  ]);
  await t.rejects(async () => store.ledger.addCredits('nobody', USD, 'x'), /unknown organization/);
  await t.rejects(async () => store.ledger.addCredits('broke', 0.5, 'x'), { name: 'TypeError' });
  t.same((await store.ledger.orgIds()), ['acme', 'broke', 'capped', 'poor']);
  t.equal((await store.ledger.balanceOf('nobody')), null);
  await store.close();
});

t.test('two processes on one file: holds never exceed the balance; stale holds are released at start', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const url = sharedStoreUrl(dir);
  const a = await openAny(url);
  const b = await openAny(url);
  t.not(a.store.bootId, b.store.bootId);
  // interleave reserves from both connections until the organization's balance is exhausted
  const held: { store: GatewayStore; r: Reservation }[] = [];
  let refused = 0;
  let sum = 0;
  for (let i = 0; i < 400; i++) {
    const side = i % 2 === 0 ? a : b;
    const amount = ((i * 7919) % 97) * 10_000_000 + 1;
    try {
      held.push({ store: side.store, r: (await side.store.ledger.reserve({ requestId: rid(), key: side.key('k_acme'), amount })) });
      sum += amount;
    } catch (err) {
      t.equal((err as GatewayError).code, 'GW_ERR_CREDITS_INSUFFICIENT');
      refused++;
    }
    const bal = (await a.store.ledger.balanceOf('acme'))!;
    if (bal.reserved > bal.balance) t.fail('reserved above the balance');
  }
  t.ok(refused > 0, 'the balance ran out');
  t.equal((await a.store.ledger.balanceOf('acme'))!.reserved, sum, 'every hold is counted once');
  t.ok(sum <= 100 * USD);

  // both processes "crash"; the next start releases every hold of another boot, never its own
  await a.store.close();
  await b.store.close();
  const c = await openAny(url);
  const own = (await c.store.ledger.reserve({ requestId: rid(), key: c.key('k_acme'), amount: 1 }));
  t.equal((await c.store.ledger.releaseStale()), held.length, 'every reservation of another boot');
  t.equal((await c.store.ledger.releaseStale()), 0, 'and only once');
  t.equal((await c.store.ledger.openReservations()), 1, 'its own reservation stays');
  t.same((await c.store.ledger.balanceOf('acme')), { balance: 100 * USD, reserved: 1, spent: 0, spendCap: null });
  const k = c.key('k_acme');
  const late = held[0]!.r;
  t.equal((await c.store.ledger.settle(late, record(late, k, 1))), false, 'a released hold cannot be settled later');
  t.ok((await c.store.ledger.settle(own, record(own, k, 1))));
  t.same((await c.store.ledger.balanceOf('acme')), { balance: 100 * USD - 1, reserved: 0, spent: 1, spendCap: null });
  await c.store.close();
});

t.test('after a random mix, granted credits = balance + spent, and every level adds up', async (t) => {
  const opened = await openAny();
  const { store, key } = opened;
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
        open_.push({ r: (await l.reserve({ requestId: rid(), key: k, amount: rand(20_000_000) + 1 })), k });
      } catch (err) {
        if ((err as GatewayError).status !== 402) throw err;
      }
    } else {
      const { r, k } = open_.splice(rand(open_.length), 1)[0]!;
      // mostly under the hold, sometimes an overrun
      const cost = op === 9 ? r.amount + rand(1000) : rand(r.amount + 1);
      const took = op >= 7 ? (await l.release(r, record(r, k, cost))) : (await l.settle(r, record(r, k, cost)));
      if (took) outcomes++;
      if (rand(5) === 0) await l.settle(r, record(r, k, cost)); // duplicate: must do nothing
    }
  }
  for (const { r } of open_) await l.release(r);
  t.ok(outcomes > 100, `${outcomes} reservations ended`);
  const granted = Number(opened.rows<{ s: number }>("SELECT SUM(amount) AS s FROM credit_events WHERE org = 'capped'")[0]!.s);
  const bal = (await l.balanceOf('capped'))!;
  t.equal(bal.reserved, 0);
  t.equal(bal.balance + bal.spent, granted, 'no unit created or lost');
  const usage = (where: string): number => Number(opened.rows<{ s: number | null }>(`SELECT SUM(cost) AS s FROM usage WHERE ${where}`)[0]!.s ?? 0);
  t.equal(bal.spent, usage("org = 'capped'"));
  t.equal(levelRow(opened, 'projects', "org = 'capped' AND id = 'p'").spent, usage("org = 'capped' AND project = 'p'"));
  t.equal(levelRow(opened, 'environments', "org = 'capped' AND id = 'e'").spent, usage("org = 'capped' AND environment = 'e'"));
  for (const k of keys) t.same(levelRow(opened, 'keys', `id = '${k.id}'`), { spent: usage(`key_id = '${k.id}'`), reserved: 0 });
  await store.close();
});
