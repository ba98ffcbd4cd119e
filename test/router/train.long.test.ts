// The training script as a maintainer runs it: it reproduces the shipped weights byte for byte
// (lib/router/weights.json), and it never opens test.jsonl nor anything under raw/ (every file it
// opens is traced), while it does read the train splits.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { runCommand } from '../helpers/run-bin.js';

t.test('bench/router/train reproduces the shipped weights and reads no held-out file', { timeout: 600_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'router-train-'));
  const out = join(dir, 'weights.json');
  const trace = join(dir, 'opened.txt');
  const r = await runCommand(process.execPath, ['--import', join(ROOT, 'dist/test/router/trace-opens.js'), join(ROOT, 'dist/bench/router/train.js'), '--out', out], '', { ...process.env, TRACE_OPENS_FILE: trace });
  t.equal(r.code, 0, r.stderr);
  t.equal(readFileSync(out, 'utf8'), readFileSync(join(ROOT, 'lib/router/weights.json'), 'utf8'), 'the same bytes as lib/router/weights.json');
  const opened = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  const data = opened.filter((p) => p.includes('router-data'));
  t.ok(data.some((p) => p.endsWith('routellm-mmlu/train.jsonl')) && data.some((p) => p.endsWith('llmrouter-dcrouter/train.jsonl')), 'the trace sees the train splits opened');
  t.same(data.filter((p) => /test\.jsonl$|\/raw(\/|$)/.test(p)), [], 'never test.jsonl, never raw/');
});
