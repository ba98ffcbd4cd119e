// The cross-validation the README's CV figures come from, as a maintainer runs it (small options,
// so it is quick): a figure per dataset and the mean, reading train.jsonl only — never dev.jsonl
// (those are the figures it checks), test.jsonl nor raw/ (every file it opens is traced).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { runCommand } from '../helpers/run-bin.js';

t.test('bench/router/cross-validate scores held-out train folds and reads train.jsonl only', { timeout: 300_000 }, async (t) => {
  const trace = join(mkdtempSync(join(tmpdir(), 'router-cv-')), 'opened.txt');
  const args = ['--import', join(ROOT, 'dist/test/router/trace-opens.js'), join(ROOT, 'dist/bench/router/cross-validate.js'), '--folds', '2', '--epochs', '1', '--members', '1'];
  const r = await runCommand(process.execPath, args, '', { ...process.env, TRACE_OPENS_FILE: trace });
  t.equal(r.code, 0, r.stderr);
  for (const dataset of ['routellm-mmlu', 'routellm-gsm8k', 'routellm-mtbench', 'llmrouter-dcrouter']) {
    t.match(r.stdout, new RegExp(`${dataset} +2-fold CV on train n= *\\d+ +router saved +\\d+\\.\\d %`), dataset);
  }
  t.match(r.stdout, /mean saved over MMLU, GSM8K, 9-model: \d+\.\d %/);
  t.match(r.stdout, /pooled \(one target for all 12505 prompts\): +\d+\.\d %/, 'the pooled figure, as the evaluation reads it');
  const data = readFileSync(trace, 'utf8').split('\n').filter((p) => p.includes('router-data'));
  t.ok(data.some((p) => p.endsWith('routellm-gsm8k/train.jsonl')), 'the trace sees the train splits opened');
  t.same(data.filter((p) => /(dev|test)\.jsonl$|\/raw(\/|$)/.test(p)), [], 'never dev.jsonl, test.jsonl nor raw/');
});
