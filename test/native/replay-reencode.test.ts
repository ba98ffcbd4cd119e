// bin/replay --reencode: a recorded Chat stream as the gateway writes it now (content frames as the
// upstream sent them) and as it wrote it before (every event re-encoded), for comparing the two paths.
import t from 'tap';
import { runReplay } from '../helpers/replay-bin.js';
import { fixture } from '../helpers/paths.js';

t.test('--reencode writes every frame from the canonical events', async (t) => {
  const file = fixture('upstream', 'openai-chat', 'text-usage.sse');
  const now = await runReplay([file]);
  const before = await runReplay([file, '--reencode']);
  t.equal(now.code, 0);
  t.equal(before.code, 0);
  t.match(now.stdout, /"system_fingerprint":"fp_7f8eb7d1f9"/, 'through: the upstream\'s frames');
  t.notMatch(before.stdout, /system_fingerprint/, 're-encoded: the gateway\'s own chunk shape');
  const text = (out: string): string => out.split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => (JSON.parse(f.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '').join('');
  t.equal(text(now.stdout), text(before.stdout), 'the same text');
  t.ok(text(now.stdout).length > 0);
});
