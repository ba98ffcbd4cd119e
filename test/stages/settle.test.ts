// settle: a passthrough whose close ends the request. Its charging rules, learned from the notes, are
// pinned with reserve-credits in reserve-settle.test.ts; here what a custom pipeline sees: values go
// through unchanged (whatever their type and chunking), the `audioSeconds` option reads each item,
// and close writes exactly one summary line from what the notes said, with the outcome it is given.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { errors } from '../../lib/errors/index.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import { settle } from '../../stages/settle.js';
import { makeContext, makeRouted } from '../helpers/context.js';
import { run, sameForEveryFeeding } from './harness.js';

function logged(): { lines: Record<string, unknown>[]; log: pino.Logger } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (c: Buffer, _e, cb) => (lines.push(JSON.parse(c.toString()) as Record<string, unknown>), cb()) });
  return { lines, log: pino({ level: 'info' }, sink) };
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

t.test('values pass unchanged and in order, whatever the chunking; notes are not values', async (t) => {
  const bytes = Buffer.from('event: message_start\ndata: {}\n\n✓'.repeat(5));
  const got = await sameForEveryFeeding(t, bytes, 'settle passthrough', async (chunks) => {
    const ctx = makeContext();
    const out = await run(settle<Buffer>()(ctx), chunks, ctx);
    return { same: out.values.every((v, i) => v === chunks[i]), n: out.values.length === chunks.length, bytes: Buffer.concat(out.values) };
  });
  t.same(got, { same: true, n: true, bytes }, 'the very same Buffers');
});

t.test('close: one summary line from the notes, with the outcome the client saw', async (t) => {
  const { lines, log } = logged();
  const ctx = makeContext({ log, endpoint: 'messages' });
  const stage = settle<string>()(ctx);
  const upstream: Upstream = { id: 'sim', protocol: 'anthropic', api: 'messages', upstreamModel: 'claude-opus-5', requestId: 'req_up_1', stream: true, timing: { sentAt: Date.now() } };
  const notes: ChainNote[] = [
    { note: 'routed', routed: makeRouted('anthropic/claude-opus-5', { model: 'opus' }) },
    { note: 'upstream', upstream },
    { note: 'usage', usage: { input: 10, output: 20, cacheRead: 1, cacheWrite: 2, reasoning: 0, webSearches: 0 } },
  ];
  await run(stage, [...notes, 'a', 'b'], ctx);
  await stage.close!(ctx, undefined, { status: 200 });
  await flush();
  t.equal(lines.length, 1, 'exactly one line');
  t.match(lines[0], { msg: 'request', status: 200, keyId: 'key_acme', modelRequested: 'opus', model: 'anthropic/claude-opus-5', provider: 'sim', upstreamRequestId: 'req_up_1', usage: { input: 10, output: 20, cacheRead: 1, cacheWrite: 2 }, costUsd: 0 });
  t.notOk('errorCode' in lines[0]!, 'no reservation: nothing charged, no error');

  const failed = logged();
  const fctx = makeContext({ log: failed.log });
  await settle<string>()(fctx).close!(fctx, errors.integrity('broken', undefined));
  await flush();
  t.match(failed.lines[0], { status: 502, errorCode: 'GW_ERR_INTEGRITY', errorMessage: /integrity check: broken/ }, 'without an outcome: the error’s own status');
});

t.test('audioSeconds reads each item (the transcription result) for the per-minute charge', async (t) => {
  const ctx = makeContext();
  const seen: number[] = [];
  const stage = settle<{ s: number }>({ audioSeconds: (item) => (seen.push(item.s), item.s) })(ctx);
  const got = await run(stage, [{ s: 1.5 }, { s: 2 }], ctx);
  t.same(got.values, [{ s: 1.5 }, { s: 2 }]);
  t.same(seen, [1.5, 2]);
});
