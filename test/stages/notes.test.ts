// What a stage learns reaches later stages as typed notes, and no stage writes the request context:
// the generation chain (route → reserve-credits → a recorded upstream → decode → integrity → encode
// → settle) runs as the server fuses it, on a FROZEN context (a write would throw in strict mode).
// The response writer's notes say the head; settle charges the validated usage the notes carried.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { costOfUsage } from '../../lib/billing/cost.js';
import type { RoutedRequest } from '../../lib/chunks.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import type { Stage } from '../../lib/stage.js';
import { fuseStages } from '../../lib/fused-chain.js';
import { encodeResponse } from '../../stages/encode.js';
import { integrity } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { reserveCredits } from '../../stages/reserve-credits.js';
import { route } from '../../stages/route.js';
import { settle } from '../../stages/settle.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { makeContext, makeRouted } from '../helpers/context.js';
import { fixture } from '../helpers/paths.js';

const OPUS = 'anthropic/claude-opus-5';
const BYTES = readFileSync(fixture('upstream', 'anthropic', 'text-basic.sse'));

/** A recorded upstream in place of dispatch: the `upstream` note first, then the bytes as they came. */
function recordedUpstream(): Stage<RoutedRequest, Buffer | ChainNote> {
  const upstream: Upstream = { id: 'sim', protocol: 'anthropic', api: 'messages', upstreamModel: 'claude-haiku-4-5', stream: true, timing: { sentAt: Date.now() } };
  return { name: 'dispatch', step: () => [{ note: 'upstream', upstream }, BYTES.subarray(0, 100), BYTES.subarray(100)] };
}

async function* source<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

t.test('the chain on a frozen context: notes carry routing, the hold, the upstream, usage and the head', async (t) => {
  const ctx = Object.freeze(makeContext());
  const stages = [route()(ctx), reserveCredits()(ctx), recordedUpstream(), sseDecode(), providerDecode(), integrity(), encodeResponse()(ctx), settle<string>()(ctx)] as Stage<unknown, unknown>[];
  const notes: ChainNote[] = [];
  let text = '';
  for await (const piece of fuseStages<string>(stages, ctx, (n) => notes.push(n))(source([makeRouted(OPUS, { maxTokens: 100 }).request]))) text += piece;

  t.same(notes.map((n) => n.note), ['routed', 'headers', 'reserved', 'upstream', 'usage', 'head', 'usage'], 'in the order the stages learned them');
  t.match(text, /^event: message_start\n/, 'the client got the encoded stream');
  const head = notes.find((n) => n.note === 'head');
  t.match(head, { status: 200, whole: false, headers: { 'content-type': 'text/event-stream; charset=utf-8' }, keepalive: 'event: ping\ndata: {"type": "ping"}\n\n' });
  const usage = notes.filter((n) => n.note === 'usage').at(-1);
  t.ok(usage?.note === 'usage' && usage.usage.output > 0, 'validated usage');

  for (const stage of stages) await stage.close?.(ctx, undefined, { status: 200 });
  const cost = usage?.note === 'usage' ? costOfUsage(ctx.services.catalog, OPUS, usage.usage) : -1;
  t.ok(cost > 0);
  t.same(ctx.services.store.ledger.balanceOf('acme'), { balance: 100_000_000_000 - cost, reserved: 0, spent: cost, spendCap: null }, 'settle charged what the usage notes said');
  t.ok(Object.isFrozen(ctx), 'and nothing wrote the context');
});

t.test('Node streams: notes pass from Transform to Transform; the last one hands them aside', async (t) => {
  const { Readable, Writable } = await import('node:stream');
  const { pipeline } = await import('node:stream/promises');
  const { toTransform } = await import('../../lib/stage.js');
  const ctx = Object.freeze(makeContext());
  const routed = makeRouted(OPUS);
  const first: Stage<string, string | ChainNote> = { name: 'first', step: (s) => [{ note: 'routed', routed }, s.toUpperCase()] };
  const heard: string[] = [];
  const second: Stage<string, string> = { name: 'second', note: (n) => void heard.push(n.note), step: (s) => [`${s}!`] };
  const last = toTransform(second, ctx);
  const aside: ChainNote[] = [];
  last.on('note', (n: ChainNote) => aside.push(n));
  const got: unknown[] = [];
  await pipeline(Readable.from(['hi']), toTransform(first, ctx, { last: false }), last, new Writable({ objectMode: true, write: (c: unknown, _e, cb) => (got.push(c), cb()) }));
  t.same(got, ['HI!'], 'the consumer gets values only');
  t.same(heard, ['routed'], 'the later stage heard the note');
  t.same(aside.map((n) => n.note), ['routed'], "and the last Transform emitted it as a 'note' event");
});
