// `npm run test:clients` in a clone without `../shared` (no loopback namespace script): under CI it
// must fail, not skip (a skip exits 0 and looks green while nothing ran); elsewhere it skips and says
// on stderr why. Runs the client-tier file with tap as the npm script does, the script path pointed
// at a file that does not exist.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { tierVerdict } from './claude-code.js';

const MISSING = join(ROOT, 'no-such-dir', 'shared', 'clients', 'loopback-netns.sh');

function runTier(env: Record<string, string>): { status: number | null; out: string } {
  // a clean environment: no tap variables of this run, no CI of the machine running this test
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tap'), ['--timeout', '60', '--disable-coverage', 'dist/test/clients/claude-code.test.js'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', GATEWAY_CLIENT_TIER: '1', GATEWAY_CLIENT_NETNS: MISSING, ...env },
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

t.test('under CI the missing namespace script fails the client tier', async (t) => {
  const r = runTier({ CI: 'true' });
  t.not(r.status, 0, 'non-zero exit');
  t.match(r.out, /must run under CI/);
  t.match(r.out, `${MISSING} is missing`);
});

t.test('outside CI it skips, exits 0, and says loudly that nothing ran', async (t) => {
  const r = runTier({});
  t.equal(r.status, 0, r.out.slice(-2000));
  t.match(r.out, /CLIENT TIER SKIPPED: nothing was tested, because .* is missing\. Under CI \(CI=true\) this is a failure\./);
});

t.test('the verdict for each environment', async (t) => {
  t.equal(tierVerdict(null, { CI: 'true', GATEWAY_CLIENT_TIER: '1' }), 'run');
  t.equal(tierVerdict('no namespace', { CI: 'true', GATEWAY_CLIENT_TIER: '1' }), 'fail');
  t.equal(tierVerdict('no namespace', { CI: '1', GATEWAY_CLIENT_TIER: '1' }), 'fail');
  t.equal(tierVerdict('no namespace', { CI: 'false', GATEWAY_CLIENT_TIER: '1' }), 'skip-loudly');
  t.equal(tierVerdict('no namespace', { GATEWAY_CLIENT_TIER: '1' }), 'skip-loudly');
  t.equal(tierVerdict('not asked for', { CI: 'true' }), 'skip', 'plain `npm test` under CI skips the tier quietly');
});

t.test('the other client files follow the same rule', async (t) => {
  const files = ['opencode', 'openai-agents', 'langchain', 'ai-sdk-openai-compatible'].map((n) => `dist/test/clients/${n}.test.js`);
  const run = (env: Record<string, string>): { status: number | null; out: string } => {
    const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tap'), ['--timeout', '60', '--disable-coverage', ...files], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', GATEWAY_CLIENT_TIER: '1', GATEWAY_CLIENT_NETNS: MISSING, ...env },
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
  };
  const ci = run({ CI: 'true' });
  t.not(ci.status, 0, 'under CI: non-zero exit');
  for (const client of ['OpenCode', 'OpenAI Agents SDK', 'LangChain', 'AI SDK openai-compatible']) t.match(ci.out, `the ${client} client tier must run under CI`);
  const dev = run({});
  t.equal(dev.status, 0, dev.out.slice(-2000));
  for (const client of ['OpenCode', 'OpenAI Agents SDK', 'LangChain', 'AI SDK openai-compatible']) t.match(dev.out, `CLIENT TIER SKIPPED (${client}): nothing was tested`);
});
