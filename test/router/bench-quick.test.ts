// The router evaluation's quick mode (what CI runs): it completes on the dev split and prints every
// dataset's table and the pooled one, each with every router of the comparison.
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { runCommand } from '../helpers/run-bin.js';

t.test('bench/router --quick prints the comparison for every dataset and pooled', { timeout: 300_000 }, async (t) => {
  const r = await runCommand(process.execPath, [join(ROOT, 'dist/bench/router/run.js'), '--quick']);
  t.equal(r.code, 0, r.stderr);
  for (const dataset of ['routellm-mmlu', 'routellm-gsm8k', 'routellm-mtbench', 'llmrouter-dcrouter', 'pooled']) t.match(r.stdout, `### ${dataset} (dev`, dataset);
  for (const router of ['learned router (ours)', 'always-strongest', 'always-cheapest', 'random mix', 'kNN', 'LiteLLM complexity_router', 'Bifrost complexity']) {
    t.equal(r.stdout.split(`| ${router}`).length - 1, 5, `${router}: a row in each of the 5 tables`);
  }
  t.match(r.stdout, /mean over MMLU, GSM8K and the 9-model set: \d+\.\d %/, 'the target figure');
});
