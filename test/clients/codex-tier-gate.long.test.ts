// `npm run test:clients` runs the Codex tier too: in a clone without `../shared` (no loopback
// namespace script) it must fail under CI and skip loudly elsewhere, as the Claude Code tier does
// (tier-gate.long.test.ts). Runs codex.test.js with tap as the npm script does, the script path pointed
// at a file that does not exist.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';

const MISSING = join(ROOT, 'no-such-dir', 'shared', 'clients', 'loopback-netns.sh');

function runTier(env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tap'), ['--timeout', '60', '--disable-coverage', 'dist/test/clients/codex.test.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', GATEWAY_CLIENT_TIER: '1', GATEWAY_CLIENT_NETNS: MISSING, ...env },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

t.test('under CI the missing namespace script fails the Codex tier', async (t) => {
  const r = runTier({ CI: 'true' });
  t.not(r.status, 0, 'non-zero exit');
  t.match(r.out, /the Codex tier must run under CI/);
  t.match(r.out, `${MISSING} is missing`);
});

t.test('outside CI it skips, exits 0, and says loudly that nothing ran', async (t) => {
  const r = runTier({});
  t.equal(r.status, 0, r.out.slice(-2000));
  t.match(r.out, /CODEX CLIENT TIER SKIPPED: nothing was tested, because .* is missing\. Under CI \(CI=true\) this is a failure\./);
});
