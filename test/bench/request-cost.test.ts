// bench/request-cost.js, the in-process diagnostic of the request side: for each #21 row it times
// the steps before the upstream call without failing, and the native requests of the bench's
// bodies go upstream as the client's own bytes (nothing in them needs an edit).
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { runCommand } from '../helpers/run-bin.js';

const SCRIPT = join(ROOT, 'dist/bench/request-cost.js');

t.test('each row: the steps timed, the client bytes sent upstream as they came', { timeout: 120_000 }, async (t) => {
  const r = await runCommand(process.execPath, [SCRIPT, '--requests', '20', '--rounds', '1']);
  t.equal(r.code, 0, r.stderr);
  for (const row of ['msg', 'chat', 'resp']) {
    t.match(r.stdout, new RegExp(`^${row} \\(\\d+ B\\): headers\\+key [\\d.]+, hash [\\d.]+, parse [\\d.]+, validate [\\d.]+, route [\\d.]+, encode [\\d.]+; sum [\\d.]+ µs`, 'm'), `${row}: the steps`);
    t.match(r.stdout, new RegExp(`^${row} upstream body: \\d+ B, the client's bytes, not copied$`, 'm'), `${row}: no edit, no copy`);
  }
});
