// bench/chain-cost.js, the in-process diagnostic of the stream chain: for each dialect it runs the
// stream through the stages without failing, prints its figures, and the client gets the same bytes
// however the upstream stream was cut.
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';
import { runCommand } from '../helpers/run-bin.js';

const SCRIPT = join(ROOT, 'dist/bench/chain-cost.js');
const LINE = /^(anthropic|openai-chat|openai-responses)(?: \(instructions \d+ chars\))?, (\d+) upstream chunks, (\d+) bytes out: CPU µs\/stream median \d+\.\d, lowest \d+\.\d/m;

for (const dialect of ['anthropic', 'openai-chat', 'openai-responses']) {
  t.test(`${dialect}: the chain's figures, the same output for either chunking`, { timeout: 120_000 }, async (t) => {
    const out: string[] = [];
    for (const chunks of ['bench', 'frames']) {
      const r = await runCommand(process.execPath, [SCRIPT, '--dialect', dialect, '--chunks', chunks, '--streams', '5', '--rounds', '1']);
      t.equal(r.code, 0, r.stderr);
      const m = LINE.exec(r.stdout);
      t.ok(m, r.stdout);
      t.equal(m?.[2], chunks === 'bench' ? '2' : '52', `${chunks}: upstream chunks`);
      out.push(m?.[3] ?? '');
    }
    t.ok(Number(out[0]) > 50 * 40, 'fifty deltas out');
    t.equal(out[1], out[0], 'the same bytes out, one chunk a frame');
  });
}

t.test('openai-responses --instructions: the request\'s instructions echoed by the upstream and the gateway', { timeout: 120_000 }, async (t) => {
  const bytes: number[] = [];
  for (const instructions of ['0', '12500']) {
    const r = await runCommand(process.execPath, [SCRIPT, '--dialect', 'openai-responses', '--instructions', instructions, '--streams', '5', '--rounds', '1']);
    t.equal(r.code, 0, r.stderr);
    const m = LINE.exec(r.stdout);
    t.ok(m, r.stdout);
    bytes.push(Number(m?.[3]));
    if (instructions !== '0') t.match(r.stdout, /^openai-responses \(instructions 12\d{3} chars\)/);
  }
  // created, in_progress and completed each echo them
  t.ok(bytes[1]! - bytes[0]! > 3 * 12_500, `${bytes[1]! - bytes[0]!} more bytes out`);
});

t.test('--garbage prints the bytes allocated per stream by function', { timeout: 120_000 }, async (t) => {
  const r = await runCommand(process.execPath, [SCRIPT, '--streams', '5', '--rounds', '1', '--garbage']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /allocated: \d+\.\d KB per stream, garbage included \(sampled\), by function:\n +\d+ B {2}\S/);
});
