import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCreditsCommand } from '../../lib/cli/credits.js';
import { openStore } from '../../lib/store/open-store.js';
import { testConfig } from '../helpers/context.js';
import { sharedStoreUrl } from './ledger-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'credits-cli-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
// a SQLite file, or a PostgreSQL database under `npm run test:postgres`
const config = testConfig({ store: sharedStoreUrl(dir) });

async function run(...argv: string[]): Promise<{ code: number; lines: Record<string, unknown>[]; errors: string }> {
  const lines: Record<string, unknown>[] = [];
  let errors = '';
  const code = await runCreditsCommand(argv, config, (l) => void lines.push(JSON.parse(l) as Record<string, unknown>), (l) => (errors += `${l}\n`));
  return { code, lines, errors };
}

t.test('show lists every organization, or one', async (t) => {
  const all = await run('show');
  t.equal(all.code, 0);
  t.same(
    all.lines.map((l) => l.org),
    ['acme', 'poor'],
  );
  t.same(all.lines[0], {
    org: 'acme',
    balanceUsd: 100,
    balanceUnits: 100_000_000_000,
    reservedUsd: 0,
    reservedUnits: 0,
    availableUsd: 100,
    availableUnits: 100_000_000_000,
    spentUsd: 0,
    spentUnits: 0,
    spendCapUsd: null,
    spendCapUnits: null,
  });
  const one = await run('show', '--org=poor');
  t.equal(one.lines.length, 1);
  t.match(one.lines[0], { org: 'poor', balanceUsd: 0.01, balanceUnits: 10_000_000 });
});

t.test('add credits exactly, with a reason; the balance survives a restart', async (t) => {
  const r = await run('add', '--org', 'poor', '--usd', '12.345678901', '--reason', 'invoice 7');
  t.equal(r.code, 0);
  t.same(r.lines, [{ org: 'poor', addedUsd: 12.345678901, addedUnits: 12_345_678_901, balanceUsd: 12.355678901, balanceUnits: 12_355_678_901, reason: 'invoice 7' }]);
  const again = await run('show', '--org', 'poor');
  t.equal(again.lines[0]!.balanceUnits, 12_355_678_901, 'seeding again does not grant the initial credits twice');
});

t.test('usage lists records newest first, filtered by org and key', async (t) => {
  const store = await openStore(config);
  await store.seed(config);
  const key = store.findKey('sk-test-acme-0001')!;
  for (const [i, cost] of [1_000_000, 2_000_000].entries()) {
    const r = await store.ledger.reserve({ requestId: `req_cli_${i}`, key, amount: 5_000_000 });
    await store.ledger.settle(r, {
      requestId: r.requestId,
      keyId: key.id,
      org: key.org,
      project: key.project,
      environment: key.environment,
      endpoint: 'chat.completions',
      modelRequested: null,
      modelServed: 'anthropic/claude-fable-5',
      provider: 'sim',
      inputTokens: 1,
      outputTokens: 2,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      webSearches: 0,
      audioSeconds: null,
      cost,
      callName: null,
      endUserId: null,
      status: 200,
      errorCode: null,
      latencyMs: 5,
    });
  }
  await store.close();
  const r = await run('usage', '--org', 'acme', '--limit', '1');
  t.equal(r.code, 0);
  t.equal(r.lines.length, 1);
  t.match(r.lines[0], { requestId: 'req_cli_1', keyId: 'key_acme', costUsd: 0.002, costUnits: 2_000_000, endpoint: 'chat.completions' });
  t.equal((await run('usage', '--key', 'key_acme')).lines.length, 2);
  t.equal((await run('usage', '--key', 'key_free')).lines.length, 0);
  const show = await run('show', '--org', 'acme');
  t.match(show.lines[0], { spentUnits: 3_000_000, balanceUnits: 100_000_000_000 - 3_000_000, reservedUnits: 0 });
});

t.test('bad usage exits 2 with guidance', async (t) => {
  for (const argv of [[], ['frobnicate'], ['show', '--org'], ['show', '--key', 'x'], ['add', '--org', 'acme'], ['add', '--org', 'acme', '--usd', '1e3'], ['add', '--org', 'nobody', '--usd', '1'], ['usage', '--limit', '0'], ['show', 'extra']]) {
    const r = await run(...argv);
    t.equal(r.code, 2, argv.join(' '));
    t.equal(r.lines.length, 0);
    t.ok(r.errors.length > 0);
  }
  t.equal((await run('--help')).code, 0);
});
