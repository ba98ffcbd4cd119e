// The Open Responses compliance suite against bin/gateway, on every text model of the built-in
// catalog (simulated providers) and gateway-auto: every test passes except those the gateway's spec
// rules out (openresponses.ts RULED_OUT); the suite's optional tests skip themselves. Prints the
// figures per model.
//
// Run by `npm run test:clients` when GATEWAY_OPENRESPONSES_DIR names a checkout of
// openresponses/openresponses (the suite is not on npm and CI has no other source: there, and
// whenever the variable is unset, the file skips, saying why). bun and zod come from npm into
// .cache/clients.
import t from 'tap';
import { defaultConfig } from '../../lib/default-config.js';
import { startGateway, type RunningGateway } from '../helpers/gateway.js';
import { BUN_VERSION, ensureBun, RULED_OUT, runSuite, suiteDir } from './openresponses.js';

const found = suiteDir(process.env);
const why = 'why' in found ? found.why : ensureBun();
if (why !== null) {
  if (process.env.GATEWAY_CLIENT_TIER === '1') console.error(`\nOPEN RESPONSES COMPLIANCE SKIPPED: nothing was tested, because ${why}.\n`);
  t.plan(0, why);
} else {
  const dir = (found as { dir: string }).dir;
  const { config, demoKey } = defaultConfig({});
  config.store = 'sqlite::memory:';
  const models = [...(config.models as { id: string; deployments: { api?: string }[] }[]).filter((m) => m.deployments.some((d) => d.api !== 'transcriptions')).map((m) => m.id), 'gateway-auto'];

  let gw: RunningGateway;
  t.before(async () => {
    gw = await startGateway(config);
  });
  t.teardown(() => gw?.stop());

  t.comment(`bun ${BUN_VERSION}, suite at ${dir}`);
  for (const model of models) {
    t.test(model, async (t) => {
      const { results, raw } = runSuite(dir, `${gw.url}/v1`, demoKey, model);
      t.ok(results.length > 0, `the suite reported results${results.length === 0 ? `: ${raw.slice(-1500)}` : ''}`);
      const passed = results.filter((r) => r.status === 'passed').length;
      const skipped = results.filter((r) => r.status === 'skipped').length;
      t.comment(`${model}: ${passed} passed, ${skipped} skipped, ${results.length} tests`);
      for (const r of results) {
        if (r.status === 'skipped') continue;
        const ruledOut = RULED_OUT[r.id];
        if (ruledOut !== undefined) {
          t.comment(`${r.id}: ${r.status} (ruled out: ${ruledOut})`);
          continue;
        }
        t.equal(r.status, 'passed', `${r.id}${r.errors?.length ? `: ${r.errors.join('; ').slice(0, 1500)}` : ''}`);
      }
    });
  }
}
