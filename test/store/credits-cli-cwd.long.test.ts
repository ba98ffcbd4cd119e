// `gateway credits` run as an operator runs it, from another directory than the config's: it names
// the config and store it opened, finds the gateway's ledger through --config (a relative store path
// in a config file is relative to that file), and refuses, creating nothing, a store that is not there.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { baseConfig } from '../helpers/gateway.js';
import { gatewayCli, runGateway, usageLines } from '../helpers/processes.js';

const root = mkdtempSync(join(tmpdir(), 'gw-cli-cwd-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const configDir = join(root, 'etc');
const elsewhere = join(root, 'elsewhere');
const served = join(root, 'served-from');
for (const d of [configDir, elsewhere, served]) mkdirSync(d);
const configFile = join(configDir, 'gateway.config.json');
writeFileSync(configFile, JSON.stringify(baseConfig({ store: 'sqlite:ledger/gateway.db' })));
const ledger = join(configDir, 'ledger', 'gateway.db');

t.test('a relative store path in a config file is relative to the file, for the gateway and the CLI', async (t) => {
  const gw = await runGateway(served, {}, ['--config', configFile]);
  await gw.stop();
  t.ok(existsSync(ledger), 'the gateway created the ledger next to its config');
  t.same(readdirSync(served), [], 'and nothing in its working directory');

  const r = gatewayCli(elsewhere, ['credits', 'show', '--config', configFile]);
  t.equal(r.status, 0, r.stderr);
  t.match(usageLines(r.stdout), [{ org: 'acme', balanceUsd: 100 }]);
  t.equal(r.stderr.trim().split('\n').length, 1, 'one line on stderr');
  t.match(r.stderr, `config ${configFile}, store ${ledger}`);
});

t.test('without --config, away from the config, the CLI refuses and creates nothing', async (t) => {
  const r = gatewayCli(elsewhere, ['credits', 'show']);
  t.equal(r.status, 2);
  t.equal(r.stdout, '');
  t.match(r.stderr, 'built-in default');
  t.match(r.stderr, join(elsewhere, 'data', 'gateway.db'));
  t.match(r.stderr, /does not exist/);
  t.match(r.stderr, /--config FILE/);
  t.same(readdirSync(elsewhere), [], 'no data/ directory, no database file');
});

t.test('a config whose store is missing is refused too', async (t) => {
  const missing = join(root, 'missing.json');
  writeFileSync(missing, JSON.stringify(baseConfig({ store: 'sqlite:nowhere/gateway.db' })));
  const r = gatewayCli(elsewhere, ['credits', 'usage', '--config', missing]);
  t.equal(r.status, 2);
  t.match(r.stderr, `config ${missing} names store ${join(root, 'nowhere', 'gateway.db')}`);
  t.notOk(existsSync(join(root, 'nowhere')), 'nothing created');
  const memory = join(root, 'memory.json');
  writeFileSync(memory, JSON.stringify(baseConfig()));
  const m = gatewayCli(elsewhere, ['credits', 'show', '--config', memory]);
  t.equal(m.status, 2);
  t.match(m.stderr, /in memory/);
});

t.test('--help', async (t) => {
  const top = gatewayCli(elsewhere, ['--help']);
  t.equal(top.status, 0);
  t.match(top.stdout, /gateway \[--config FILE\]/);
  t.match(top.stdout, /gateway credits/);
  const credits = gatewayCli(elsewhere, ['credits', '--help']);
  t.equal(credits.status, 0);
  t.match(credits.stderr, /gateway credits usage/);
  t.same(readdirSync(elsewhere), [], 'help opens nothing');
  const bad = gatewayCli(elsewhere, ['--bogus']);
  t.equal(bad.status, 2);
  t.match(bad.stderr, /Unknown option '--bogus'[\s\S]*usage:/);
});
