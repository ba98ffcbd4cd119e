// The batch's coalesced counters (lib/store/ledger-batch.ts): inside one batch a level is read at
// most once and written once, yet every hold is decided against the counters as the earlier
// operations of the batch left them, and the rows end exactly as per-operation updates leave them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { GatewayError } from '../../lib/errors.js';
import type { Store } from '../../lib/store/store.js';
import type { Reservation } from '../../lib/store/types.js';
import { allCounters, config, open, outcome, record, rid, USD } from './ledger-fixture.js';

const D = USD / 10; // $0.10

type Counters = { reserved: number; spent: number };
const row = (store: Store, table: string, where: string): Counters =>
  store.db.prepare<[], Counters>(`SELECT reserved, spent FROM ${table} WHERE ${where}`).get()!;

t.test('one organization balance shared by two keys (different levels) in one batch, and charged within it', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  l.addCredits('capped', -(100 * USD - USD / 100), 'down to one cent');
  const cent = USD / 100;
  const res = await Promise.allSettled([
    l.reserveSoon({ requestId: rid(), key: key('k_org'), amount: (cent * 6) / 10 }),
    l.reserveSoon({ requestId: rid(), key: key('k_key'), amount: (cent * 6) / 10 }),
    l.reserveSoon({ requestId: rid(), key: key('k_env'), amount: (cent * 4) / 10 }),
  ]);
  t.equal(outcome(res[0]!), (cent * 6) / 10);
  t.match(outcome(res[1]!), { code: 'GW_ERR_CREDITS_INSUFFICIENT', message: /\$0\.004 available \(balance \$0\.01, \$0\.006 held by requests in progress\)/ });
  t.equal(outcome(res[2]!), (cent * 4) / 10, 'the rest of the balance, exactly');
  t.same(row(store, 'orgs', "id = 'capped'"), { reserved: cent, spent: 0 });
  t.same(row(store, 'keys', "id = 'k_key'"), { reserved: 0, spent: 0 }, 'the refused hold counted nothing');
  t.same(row(store, 'environments', "id = 'e'"), { reserved: (cent * 4) / 10, spent: 0 });

  // a charge in the batch lowers the balance the next hold sees: an overrun of 0.3 cent leaves 0.2
  const poor = key('k_poor');
  const a = await l.reserveSoon({ requestId: rid(), key: poor, amount: cent / 2 });
  const after = await Promise.allSettled([
    l.endSoon(a, record(a, poor, (cent * 8) / 10), true),
    l.reserveSoon({ requestId: rid(), key: poor, amount: (cent * 3) / 10 }),
    l.reserveSoon({ requestId: rid(), key: poor, amount: (cent * 2) / 10 }),
  ]);
  t.match(after.map(outcome), [true, { code: 'GW_ERR_CREDITS_INSUFFICIENT', message: /\$0\.002 available/ }, (cent * 2) / 10]);
  t.same(l.balanceOf('poor'), { balance: (cent * 2) / 10, reserved: (cent * 2) / 10, spent: (cent * 8) / 10, spendCap: null });
  store.close();
});

t.test('caps reached within one batch: key, environment, project and organization shared by several keys', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  const hold = (k: string, amount: number): Promise<Reservation> => l.reserveSoon({ requestId: rid(), key: key(k), amount });
  const res = await Promise.allSettled([
    hold('k_key', 15 * D),
    hold('k_key', 6 * D), // key: 1.5 held + 0.6 > 2
    hold('k_proj', 20 * D),
    hold('k_env', 6 * D), // project: 1.5 + 2 + 0.6 > 4
    hold('k_env', 5 * D), // project at 4.0 exactly
    hold('k_key', 1 * D), // environment: 1.5 + 0.5 + 0.1 ≤ 3, key 1.6 ≤ 2, but project 4.1 > 4
    hold('k_org', 11 * D), // organization: 4 + 1.1 > 5
    hold('k_org', 10 * D), // organization at 5.0 exactly
  ]);
  t.same(
    res.map((s) => (s.status === 'fulfilled' ? s.value.amount : (s.reason as GatewayError).param)),
    [15 * D, 'key', 20 * D, 'project', 5 * D, 'project', 'organization', 10 * D],
  );
  t.match(outcome(res[1]!), { message: /spend cap of the key k_key reached \(cap \$2\.00, spent \$0\.00, \$1\.50 held by requests in progress, this request may cost up to \$0\.60\)/i });
  t.match(outcome(res[3]!), { message: /the project p reached \(cap \$4\.00, spent \$0\.00, \$3\.50 held/ });
  t.same(row(store, 'orgs', "id = 'capped'"), { reserved: 50 * D, spent: 0 });
  t.same(row(store, 'projects', "id = 'p'"), { reserved: 40 * D, spent: 0 });
  t.same(row(store, 'environments', "id = 'e'"), { reserved: 20 * D, spent: 0 });
  t.same([row(store, 'keys', "id = 'k_key'"), row(store, 'keys', "id = 'k_env'"), row(store, 'keys', "id = 'k_org'")], [
    { reserved: 15 * D, spent: 0 },
    { reserved: 5 * D, spent: 0 },
    { reserved: 10 * D, spent: 0 },
  ]);

  // the environment cap shared by two keys
  const { store: s2, key: key2 } = open();
  const env = await Promise.allSettled([
    s2.ledger.reserveSoon({ requestId: rid(), key: key2('k_env'), amount: 25 * D }),
    s2.ledger.reserveSoon({ requestId: rid(), key: key2('k_key'), amount: 6 * D }), // 2.5 + 0.6 > 3
  ]);
  t.same(env.map((s) => (s.status === 'fulfilled' ? s.value.amount : (s.reason as GatewayError).param)), [25 * D, 'environment']);
  store.close();
  s2.close();
});

t.test('an end and holds of the same key in one batch, the end taken in an earlier batch (levels not read yet)', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  const k = key('k_key'); // cap $2, at all four levels
  const a = await l.reserveSoon({ requestId: rid(), key: k, amount: 15 * D });
  // the end comes first: its change is pending when the hold reads the levels, and must count
  const res = await Promise.allSettled([
    l.endSoon(a, record(a, k, 12 * D), true),
    l.reserveSoon({ requestId: rid(), key: k, amount: 8 * D }), // 1.2 spent + 0.8 = cap: granted only if the release counted
    l.reserveSoon({ requestId: rid(), key: k, amount: 1 }), // refused only if the charge counted
    l.endSoon(a, record(a, k, 12 * D), true), // already ended
  ]);
  t.same(res.map((s) => (s.status === 'fulfilled' ? (typeof s.value === 'boolean' ? s.value : s.value.amount) : (s.reason as GatewayError).param)), [
    true,
    8 * D,
    'key',
    false,
  ]);
  t.same(l.balanceOf('capped'), { balance: 100 * USD - 12 * D, reserved: 8 * D, spent: 12 * D, spendCap: 5 * USD });
  for (const [table, where] of [['keys', "id = 'k_key'"], ['projects', "id = 'p'"], ['environments', "id = 'e'"]] as const)
    t.same(row(store, table, where), { reserved: 8 * D, spent: 12 * D }, table);
  t.equal(l.usageFor({ keyId: 'k_key', limit: 10 }).length, 1);

  // a batch with only ends of earlier holds (nothing read, each level written once) and a hold elsewhere
  const b = (res[1] as PromiseFulfilledResult<Reservation>).value;
  const other = await l.reserveSoon({ requestId: rid(), key: key('k_proj'), amount: 5 * D });
  const ends = await Promise.all([
    l.endSoon(b, record(b, k, 3 * D), true),
    l.endSoon(other, record(other, key('k_proj'), 4 * D), false), // a release: nothing charged
    l.reserveSoon({ requestId: rid(), key: key('k_acme'), amount: USD }).then((r) => r.amount),
  ]);
  t.same(ends, [true, true, USD]);
  t.same(l.balanceOf('capped'), { balance: 100 * USD - 15 * D, reserved: 0, spent: 15 * D, spendCap: 5 * USD });
  t.same(row(store, 'keys', "id = 'k_key'"), { reserved: 0, spent: 15 * D });
  t.same(row(store, 'keys', "id = 'k_proj'"), { reserved: 0, spent: 0 });
  t.same(row(store, 'projects', "id = 'p'"), { reserved: 0, spent: 15 * D });
  t.same(row(store, 'environments', "id = 'e'"), { reserved: 0, spent: 15 * D });
  t.same(row(store, 'orgs', "id = 'acme'"), { reserved: USD, spent: 0 });
  store.close();
});

t.test('a hold ends at the levels it was taken at: the key moved since, or its levels not handed back', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  const k = key('k_key'); // capped / p / e
  const [a, b] = await Promise.all([0, 1].map(() => l.reserveSoon({ requestId: rid(), key: k, amount: 5 * D })));
  t.match(a, { org: 'capped', project: 'p', environment: 'e' }, 'the hold says where it was taken');
  // the key moves to the organization alone: its holds still end at p and e
  const seeded = config();
  store.seed({ ...seeded, keys: seeded.keys!.map((x) => (x.id === 'k_key' ? { ...x, project: undefined, environment: undefined } : x)) });
  t.match(store.findKey('sk-ledger-key-cap'), { org: 'capped', project: null, environment: null }, 'moved');
  // `b` as a caller may build it (id, request, key, amount): ended at the levels its row names
  const bare: Reservation = { id: b!.id, requestId: b!.requestId, keyId: b!.keyId, amount: b!.amount };
  t.same(await Promise.all([l.endSoon(a!, record(a!, k, 2 * D), true), l.endSoon(bare, record(bare, k, 3 * D), true)]), [true, true]);
  t.same(await Promise.all([l.endSoon(a!, record(a!, k, 2 * D), true), l.endSoon(bare, record(bare, k, 3 * D), true)]), [false, false], 'each ended once');
  for (const [table, where] of [['keys', "id = 'k_key'"], ['projects', "id = 'p'"], ['environments', "id = 'e'"]] as const)
    t.same(row(store, table, where), { reserved: 0, spent: 5 * D }, table);
  t.same(l.balanceOf('capped'), { balance: 100 * USD - 5 * D, reserved: 0, spent: 5 * D, spendCap: 5 * USD });
  store.close();
});

t.test('a batch reads each level once and writes it once', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  // count calls on the ledger's own statement objects (the batch uses the same ones)
  const stmts = l as unknown as Record<string, Record<'get' | 'run', (...a: unknown[]) => unknown>>;
  const calls: Record<string, number> = {};
  for (const [name, method] of [['levels', 'get'], ['bumpOrg', 'run'], ['bumpKey', 'run'], ['bumpProject', 'run'], ['bumpEnv', 'run']] as const) {
    const stmt = stmts[name]!;
    const orig = stmt[method].bind(stmt);
    stmt[method] = (...a: unknown[]) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return orig(...a);
    };
  }
  const k = key('k_key');
  const holds = await Promise.all(Array.from({ length: 10 }, () => l.reserveSoon({ requestId: rid(), key: k, amount: D })));
  t.same(calls, { levels: 1, bumpOrg: 1, bumpKey: 1, bumpProject: 1, bumpEnv: 1 });
  await Promise.all(holds.map((h) => l.endSoon(h, record(h, k, D / 2), true)));
  t.same(calls, { levels: 1, bumpOrg: 2, bumpKey: 2, bumpProject: 2, bumpEnv: 2 }, 'ends read nothing');
  t.same(l.balanceOf('capped'), { balance: 100 * USD - 5 * D, reserved: 0, spent: 5 * D, spendCap: 5 * USD });
  store.close();
});

t.test('a store failure rolls the whole batch back, counters included; the next batch starts afresh', async (t) => {
  const { store, key } = open();
  const l = store.ledger;
  const k = key('k_key');
  const a = await l.reserveSoon({ requestId: rid(), key: k, amount: 15 * D });
  const before = allCounters(store);
  const batch = (): Promise<PromiseSettledResult<Reservation | boolean>[]> =>
    Promise.allSettled([
      l.reserveSoon({ requestId: rid(), key: key('k_acme'), amount: USD }),
      l.endSoon(a, record(a, k, 10 * D), true),
      l.reserveSoon({ requestId: rid(), key: k, amount: 10 * D }),
    ]);
  // a failing operation (the usage insert), then a failing final write (the environment bump, after
  // the organization, key and project bumps ran)
  for (const trigger of [
    `CREATE TEMP TRIGGER boom BEFORE INSERT ON usage BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`,
    `CREATE TEMP TRIGGER boom BEFORE UPDATE ON environments BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`,
  ]) {
    store.db.exec(trigger);
    const res = await batch();
    t.same(res.map((s) => s.status === 'rejected' && /disk on fire/.test((s.reason as Error).message)), [true, true, true], 'every operation fails');
    t.same(allCounters(store), before, 'no counter moved');
    t.equal(l.openReservations(), 1, 'the hold is still open, no new one');
    t.equal(l.usageFor({ limit: 10 }).length, 0);
    store.db.exec('DROP TRIGGER boom');
  }
  const res = await batch();
  t.same(res.map(outcome), [USD, true, 10 * D]);
  t.same(l.balanceOf('capped'), { balance: 99 * USD, reserved: 10 * D, spent: 10 * D, spendCap: 5 * USD });
  t.same(row(store, 'environments', "id = 'e'"), { reserved: 10 * D, spent: 10 * D });
  store.close();
});

t.test('no counter is remembered across batches: another process changes the file in between', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-batch-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const url = `sqlite:${join(dir, 'gateway.db')}`;
  const a = open(url);
  const b = open(url);
  const cent = USD / 100;
  const poor = a.key('k_poor');
  t.ok(await a.store.ledger.reserveSoon({ requestId: rid(), key: poor, amount: (cent * 6) / 10 }));
  b.store.ledger.addCredits('poor', cent, 'top-up');
  t.ok(await a.store.ledger.reserveSoon({ requestId: rid(), key: poor, amount: (cent * 6) / 10 }), 'sees the credits added in between');
  b.store.db.prepare("UPDATE keys SET spend_cap = ? WHERE id = 'k_poor'").run((cent * 15) / 10);
  const refused = await a.store.ledger.reserveSoon({ requestId: rid(), key: poor, amount: (cent * 4) / 10 }).catch((e: GatewayError) => e.param);
  t.equal(refused, 'key', 'sees the cap set in between');
  t.same(b.store.ledger.balanceOf('poor'), { balance: 2 * cent, reserved: (cent * 12) / 10, spent: 0, spendCap: null });
  a.store.close();
  b.store.close();
});
