// Loaded into every test process (tap's `node-arg` in package.json): the processes a test starts
// (gateways, the CLIs, the simulated provider) run as a user runs them, without the test runner's
// module-load hook. tap's processinfo puts its `--import` into every child's NODE_OPTIONS, through
// process-on-spawn, even when a test passes `NODE_OPTIONS: ''`; the hook records every module a
// process loads, which doubles a gateway's start (about 0.55 → 1.15 s here). The listener added
// here runs after processinfo's and takes that one option out again, but only while coverage is off
// (package.json `disable-coverage`): with coverage on, the children must be measured too. Anything
// else in NODE_OPTIONS (a test's own hook) is kept.
import processOnSpawn from 'process-on-spawn';
import { withoutTapHook } from './tap-hook.js';

if (process.env._TAPJS_PROCESSINFO_COVERAGE_ === '0') {
  processOnSpawn.addListener((opts) => {
    const options = opts.env.NODE_OPTIONS;
    if (options === undefined || !options.includes('@tapjs/processinfo')) return;
    const rest = withoutTapHook(options);
    const env = { ...opts.env };
    if (rest === '') delete env.NODE_OPTIONS;
    else env.NODE_OPTIONS = rest;
    opts.env = env;
  });
}
