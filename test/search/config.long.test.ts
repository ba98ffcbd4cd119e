// The `webSearch` config block (decisions §11) through the real bin/gateway: a bad block is refused at
// start with the field path, defaults are filled in, API keys may come from ${ENV} and are never logged.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { finalizeConfig } from '../../lib/config.js';
import { baseConfig, startGateway, TEST_KEY } from '../helpers/gateway.js';
import { ROOT } from '../helpers/paths.js';

const GATEWAY = join(ROOT, 'dist/bin/gateway.js');

function runWithConfig(config: unknown, env: NodeJS.ProcessEnv = {}): { status: number | null; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-ws-cfg-'));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  const r = spawnSync(process.execPath, [GATEWAY, '--config', file, '--port', '0'], { cwd: dir, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 15_000 });
  return { status: r.status, stderr: r.stderr };
}

t.test('a bad webSearch block is refused at start, naming the field', async (t) => {
  const cases: [unknown, RegExp][] = [
    [{ backends: [{ type: 'google', apiKey: 'k' }] }, /webSearch\.backends\[0\]\.type: must be one of \["brave","tavily","exa","searxng"\]/],
    [{ backends: [{ type: 'brave' }] }, /webSearch\.backends\[0\]\.apiKey: is required for a "brave" backend/],
    [{ backends: [{ type: 'exa', apiKey: 'k' }, { type: 'searxng' }] }, /webSearch\.backends\[1\]\.baseUrl: is required for a "searxng" backend/],
    [{ backends: [{ type: 'tavily', apiKey: 'k', baseUrl: 'ftp://x' }] }, /webSearch\.backends\[0\]\.baseUrl: must match pattern/],
    [{ backends: [{ type: 'tavily', apiKey: 'k', region: 'eu' }] }, /webSearch\.backends\[0\]\.region: unknown field/],
    [{ backends: [], maxResults: 0 }, /webSearch\.maxResults: must be >= 1/],
    [{ backends: [], timeoutMs: 'soon' }, /webSearch\.timeoutMs: must be integer/],
    [{ backends: [], maxSearch: 3 }, /webSearch\.maxSearch: unknown field/],
    [{ backends: [{ type: 'brave', apiKey: '${GW_TEST_BRAVE_KEY}' }] }, /webSearch\.backends\[0\]\.apiKey: environment variable GW_TEST_BRAVE_KEY is not set/],
  ];
  for (const [webSearch, path] of cases) {
    const r = runWithConfig(baseConfig({ webSearch }));
    t.equal(r.status, 1, `exit 1 for ${String(path)}`);
    t.match(r.stderr, path);
  }
});

t.test('defaults are those of §11, and an absent block means no search', async (t) => {
  const cfg = finalizeConfig(baseConfig({ webSearch: { backends: [{ type: 'searxng', baseUrl: 'http://127.0.0.1:8080' }] } }), {});
  t.same(cfg.webSearch, { backends: [{ type: 'searxng', baseUrl: 'http://127.0.0.1:8080' }], maxResults: 5, maxSearches: 5, maxRounds: 4, snippetChars: 1200, timeoutMs: 8000 });
  t.equal(finalizeConfig(baseConfig(), {}).webSearch, undefined);
  t.same(finalizeConfig(baseConfig({ webSearch: {} }), {}).webSearch?.backends, []);
});

t.test('an API key from ${ENV} is substituted and never appears in the logs', async (t) => {
  const secret = 'brave-secret-from-env-7f3a';
  const gw = await startGateway(baseConfig({ logLevel: 'debug', webSearch: { backends: [{ type: 'brave', apiKey: '${GW_TEST_BRAVE_KEY}' }] } }), { env: { GW_TEST_BRAVE_KEY: secret } });
  const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(res.status, 200);
  await gw.stop();
  t.notMatch(JSON.stringify(gw.logs) + gw.stderr.join('\n'), secret);
  t.equal(finalizeConfig(baseConfig({ webSearch: { backends: [{ type: 'brave', apiKey: '${K}' }] } }), { K: secret }).webSearch?.backends[0]?.apiKey, secret);
});
