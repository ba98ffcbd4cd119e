// The processes tests start run without tap's module-load hook while coverage is off
// (test/helpers/plain-children.ts, loaded into every test process by package.json's tap `node-arg`).
import { spawnSync } from 'node:child_process';
import t from 'tap';
import { withoutTapHook } from './helpers/tap-hook.js';

const HOOK = 'file:///work/x/node_modules/@tapjs/processinfo/dist/esm/import.mjs';

t.test("tap's processinfo option is taken out of NODE_OPTIONS, nothing else", async (t) => {
  t.equal(withoutTapHook(`"--import=${HOOK}"`), '');
  t.equal(withoutTapHook(`--import=${HOOK}`), '');
  t.equal(withoutTapHook(`"--max-old-space-size=300" "--import=${HOOK}"`), '"--max-old-space-size=300"');
  t.equal(withoutTapHook(`--import=${HOOK} --import=/tmp/own-hook.mjs`), '--import=/tmp/own-hook.mjs');
  t.equal(withoutTapHook(`"--loader=${HOOK.replace('import.mjs', 'loader.mjs')}" --trace-warnings`), '--trace-warnings');
  t.equal(withoutTapHook('--import=/tmp/own-hook.mjs'), '--import=/tmp/own-hook.mjs');
});

/** what a child process sees in NODE_OPTIONS, and whether tap's hook recorded it (its env marks stay) */
function childOptions(env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, ['-p', 'JSON.stringify(process.env.NODE_OPTIONS ?? null)'], { env, encoding: 'utf8' });
  return r.stdout.trim();
}

const coverageOff = process.env._TAPJS_PROCESSINFO_COVERAGE_ === '0';
t.test('a process a test starts runs without the hook, with the options the test gave it', { skip: coverageOff ? false : 'not under tap with coverage off' }, async (t) => {
  // tap's runner gives this very process the hook through NODE_OPTIONS
  t.match(process.env.NODE_OPTIONS, /@tapjs\/processinfo/);
  t.equal(childOptions(process.env), 'null', 'inherited: taken out');
  t.equal(childOptions({ PATH: process.env.PATH }), 'null', 'a bare env: processinfo adds it, the listener takes it out');
  t.equal(childOptions({ ...process.env, NODE_OPTIONS: '' }), 'null', "NODE_OPTIONS: '' now means no hook");
  const own = childOptions({ ...process.env, NODE_OPTIONS: '--max-old-space-size=300' });
  t.match(own, /--max-old-space-size=300/, "the test's own option is kept");
  t.notMatch(own, /processinfo/);
});
