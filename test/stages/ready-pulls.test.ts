// An item already there is taken without an await (lib/fused-drive.ts `Pulled`): reserve-credits'
// headers, item and end, settle's end, a queued chunk and the end of a ChunkQueue (the request body,
// the upstream body through FailoverAnswer). Nothing may change for the client: over every recorded
// stream of each dialect (the project's and ../shared's), whole, byte by byte, in random chunks and
// with seeded mutations, the generation chain's stages give the same text, notes, failure and charge
// when their ready results are taken at once (the server's way) as when every pull is a promise that
// is awaited (as before). And each ready path answers results, not promises, exactly where it says.
import { PassThrough } from 'node:stream';
import t from 'tap';
import type { CanonicalEvent, DialectName, RoutedRequest } from '../../lib/chunks.js';
import type { RequestContext } from '../../lib/context.js';
import { fuseStages } from '../../lib/fused-chain.js';
import { isReady, type Pulled } from '../../lib/fused-drive.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import { ChunkReader } from '../../lib/request-io.js';
import { isAsyncIterable, type Stage } from '../../lib/stage.js';
import { encodeResponse } from '../../stages/encode.js';
import { integrity } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { reserveCredits } from '../../stages/reserve-credits.js';
import { route } from '../../stages/route.js';
import { completesAtMessageStop, settle } from '../../stages/settle.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { seedOf } from '../helpers/replay.js';
import { makeRouted } from '../helpers/context.js';
import { clientContext, clientRequest, feedings } from './harness.js';
import { mutated, recordedStreams, type Upstreams } from './recorded-streams.js';

const OPUS = 'anthropic/claude-opus-5';
const API = { anthropic: 'messages', 'openai-chat': 'chat', 'openai-responses': 'responses' } as const;
const ENDPOINT = { anthropic: 'messages', 'openai-chat': 'chat.completions', 'openai-responses': 'responses' } as const;
const BODY: Record<Upstreams, object> = {
  anthropic: { model: OPUS, max_tokens: 500, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  'openai-chat': { model: OPUS, max_completion_tokens: 500, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  'openai-responses': { model: OPUS, max_output_tokens: 500, stream: true, input: 'hi' },
};

/** items as an async iterator: each answered as itself (ready) or as a promise of it (awaited) */
class Items<T> {
  private k = 0;
  constructor(
    private readonly items: readonly T[],
    private readonly ready: boolean,
  ) {}

  next(): Pulled<T> {
    const r: IteratorResult<T> = this.k < this.items.length ? { done: false, value: this.items[this.k++]! } : { done: true, value: undefined };
    return this.ready ? r : Promise.resolve(r);
  }

  async return(): Promise<IteratorResult<T>> {
    this.k = this.items.length;
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** every pull of an async iterable awaited, as before: its `next` always answers a promise */
function promised(iterable: AsyncIterable<unknown>): AsyncIterable<unknown> {
  const it = iterable[Symbol.asyncIterator]() as unknown as { next(): Pulled<unknown>; return?(): Promise<IteratorResult<unknown>> };
  const out = {
    next: (): Promise<IteratorResult<unknown>> => {
      const r = it.next();
      return isReady(r) ? Promise.resolve(r) : r;
    },
    return: (): Promise<IteratorResult<unknown>> => it.return?.() ?? Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]: () => out,
  };
  return out;
}

/** the stage with each async output's pulls all promises (the strict path) */
function strictly(stage: Stage<unknown, unknown>): Stage<unknown, unknown> {
  return {
    name: stage.name,
    ...(stage.outputsNoNotes === true ? { outputsNoNotes: true as const } : {}),
    ...(stage.waitsOnlyForStore === true ? { waitsOnlyForStore: true as const } : {}),
    step: (item, ctx) => {
      const out = stage.step(item, ctx);
      return isAsyncIterable<unknown>(out) ? promised(out) : out;
    },
    ...(stage.steps !== undefined ? { steps: (items: readonly unknown[], from: number, to: number, out: unknown[], ctx: RequestContext) => stage.steps!(items, from, to, out, ctx) } : {}),
    ...(stage.flush !== undefined ? { flush: (ctx: RequestContext) => stage.flush!(ctx) } : {}),
    ...(stage.note !== undefined ? { note: (n: ChainNote, ctx: RequestContext) => stage.note!(n, ctx) } : {}),
  };
}

interface Outcome {
  text: string;
  notes: string;
  error: string | undefined;
  balance: unknown;
}

/** the generation chain from the validated request, the recorded bytes in dispatch's place */
async function answer(dialect: Upstreams, bytes: Buffer, chunks: Buffer[], ready: boolean): Promise<Outcome> {
  const ctx: RequestContext = clientContext(dialect as DialectName, { endpoint: ENDPOINT[dialect], reqId: 'req_ready' });
  const model = /"model":\s*"([^"]+)"/.exec(bytes.toString('latin1'))?.[1] ?? 'model';
  const upstream: Upstream = { id: 'rec', protocol: dialect === 'anthropic' ? 'anthropic' : 'openai', api: API[dialect], upstreamModel: model, stream: true, timing: { sentAt: 0 } };
  const dispatch: Stage<RoutedRequest, Buffer | ChainNote> = {
    name: 'dispatch',
    step: () => new Items<Buffer | ChainNote>([{ note: 'upstream', upstream, checked: undefined }, ...chunks], ready) as unknown as AsyncIterable<Buffer | ChainNote>,
  };
  const built = [route()(ctx), reserveCredits()(ctx), dispatch, sseDecode(), providerDecode(), integrity(), settle<CanonicalEvent>({ completes: completesAtMessageStop })(ctx), encodeResponse()(ctx)] as Stage<unknown, unknown>[];
  const stages = ready ? built : built.map(strictly);
  const notes: ChainNote[] = [];
  let text = '';
  let error: string | undefined;
  try {
    const request = clientRequest(ctx, BODY[dialect] as never);
    for await (const piece of fuseStages<string>(stages, ctx, (n) => notes.push(n))(new Items([request], ready) as unknown as AsyncIterable<unknown>)) text += piece;
  } catch (err) {
    error = `${(err as { code?: string }).code ?? ''} ${(err as Error).message}`;
  }
  for (const s of built) await s.close?.(ctx, undefined, { status: error === undefined ? 200 : 500 });
  // wall-clock fields and the hold's id differ between runs: nothing else may
  const stable = (s: string): string =>
    s
      .replace(/"(sentAt|firstByteAt|endedAt|createdAt|expiresAt|created|created_at|completed_at)":\s?\d+/g, '"$1":0')
      .replace(/"id":"res_[^"]+"/g, '"id":"res"')
      .replace(/"([a-z-]*reset[a-z-]*)":"[^"]*"/g, '"$1":""');
  return { text: stable(text), notes: stable(JSON.stringify(notes)), error, balance: ctx.services.store.ledger.balanceOf('acme') };
}

for (const dialect of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
  t.test(`${dialect}: every recorded stream, ready results taken at once and every pull awaited, give the same`, async (t) => {
    let answered = 0;
    for (const { name, bytes } of recordedStreams(dialect)) {
      const runs: { how: string; chunks: Buffer[]; bytes: Buffer }[] = feedings(bytes, name).map((f) => ({ ...f, bytes }));
      for (let k = 0; k < 4; k++) {
        const m = mutated(bytes, seedOf(`${name} ${k}`));
        runs.push({ how: `mutation ${k}`, chunks: [m], bytes: m }, { how: `mutation ${k}, random`, chunks: feedings(m, `${name} ${k}`)[2]!.chunks, bytes: m });
      }
      for (const run of runs) {
        const strict = await answer(dialect, run.bytes, run.chunks, false);
        const ready = await answer(dialect, run.bytes, run.chunks, true);
        if (strict.error === undefined && strict.text.length > 0) answered++;
        if (!t.same(ready, strict, `${name}, ${run.how}`)) return;
      }
    }
    t.ok(answered > 0, `answers completed (${answered}), charged and settled through the ready paths`);
  });
}

t.test('reserve-credits: the headers, the item and the end are answered as results; the hold as a promise', async (t) => {
  const ctx = clientContext('openai-chat');
  const stage = reserveCredits()(ctx);
  const routed = makeRouted(OPUS, { inputTokenBound: 100, maxTokens: 100 });
  const out = stage.step(routed, ctx) as AsyncIterable<unknown>;
  const it = out[Symbol.asyncIterator]() as unknown as { next(): Pulled<unknown> };
  const headers = it.next();
  t.ok(isReady(headers), 'the limiter decided at once: the headers note is there');
  t.equal(((headers as IteratorResult<ChainNote>).value as ChainNote).note, 'headers');
  const held = it.next();
  t.ok(held instanceof Promise, 'the hold is waited for');
  t.equal(((await held).value as ChainNote).note, 'reserved');
  t.equal(stage.close!(ctx, undefined), undefined, 'close has nothing to wait for');
  const item = it.next();
  t.ok(isReady(item), 'the item is there');
  t.equal((item as IteratorResult<unknown>).value, routed);
  const end = it.next();
  t.ok(isReady(end) && end.done === true, 'and so is the end');
});

t.test('settle: the completing item after its commit, then the end as a result; close then returns no promise', async (t) => {
  const ctx = clientContext('openai-chat');
  const reserve = reserveCredits()(ctx);
  const stage = settle<CanonicalEvent>({ completes: completesAtMessageStop })(ctx);
  const routed = makeRouted(OPUS, { inputTokenBound: 100, maxTokens: 100 });
  for await (const n of reserve.step(routed, ctx) as AsyncIterable<unknown>) if ((n as ChainNote).note !== undefined) stage.note!(n as ChainNote, ctx);
  const stop: CanonicalEvent = { type: 'message-stop' } as CanonicalEvent;
  const out = stage.step(stop, ctx) as AsyncIterable<CanonicalEvent>;
  const it = out[Symbol.asyncIterator]() as unknown as { next(): Pulled<CanonicalEvent> };
  const first = it.next();
  t.ok(first instanceof Promise, 'the commit is waited for');
  t.equal((await first).value, stop, 'then the completing item goes on');
  const end = it.next();
  t.ok(isReady(end) && end.done === true, 'the end is there at once');
  t.equal(stage.close!(ctx, undefined, { status: 200 }), undefined, 'charged already: close returns no promise');
  t.match(ctx.services.store.ledger.balanceOf('acme'), { reserved: 0 }, 'the hold ended');

  const unsettled = settle<CanonicalEvent>({ completes: completesAtMessageStop })(ctx);
  const closing = unsettled.close!(ctx, undefined, { status: 200 });
  t.ok(closing instanceof Promise, 'not charged yet: close returns its promise');
  await closing;
});

t.test('ChunkQueue: a queued chunk and the end are pulled as results, a wait as a promise; next() always a promise', async (t) => {
  const src = new PassThrough();
  const reader = new ChunkReader(src);
  const ready = reader.readyReads();
  const waiting = ready.next();
  t.ok(waiting instanceof Promise, 'nothing there yet: a promise');
  src.write('a');
  t.equal((await waiting).value?.toString(), 'a');
  src.write('b');
  src.write('c');
  await new Promise((r) => setImmediate(r));
  const b = ready.next();
  t.ok(isReady(b), 'a queued chunk is there');
  t.equal((b as IteratorResult<Buffer>).value?.toString(), 'b');
  const c = reader.next();
  t.ok(c instanceof Promise, 'next() answers a promise even so');
  t.equal((await c).value?.toString(), 'c');
  src.end();
  await new Promise((r) => setImmediate(r));
  const end = ready.next();
  t.ok(isReady(end) && end.done === true, 'the end, once come, is there');
});

t.test('ChunkReader: a body of declared length ends once every byte came, before node:http says so; a chunked one waits for its end', async (t) => {
  for (const [how, length] of [['declared', '6'], ['chunked', undefined]] as const) {
    const src = Object.assign(new PassThrough(), { headers: length === undefined ? {} : { 'content-length': length } });
    const reader = new ChunkReader(src);
    const ready = reader.readyReads();
    src.write('abc');
    src.write('def');
    await new Promise((r) => setImmediate(r));
    const got: string[] = [];
    for (let r = ready.next(); isReady(r) && r.done !== true; r = ready.next()) got.push(r.value.toString());
    t.same(got, ['abc', 'def'], `${how}: the chunks`);
    const after = ready.next();
    if (length !== undefined) {
      t.ok(isReady(after) && after.done === true, `${how}: the end at once, though 'end' did not come`);
      t.ok(reader.sourceEnded);
    } else {
      t.ok(after instanceof Promise, `${how}: the end is waited for`);
      src.end();
      t.equal((await after).done, true, `${how}: then it comes`);
    }
  }
  // a short body (the client stopped sending) never ends early
  const short = Object.assign(new PassThrough(), { headers: { 'content-length': '10' } });
  const reader = new ChunkReader(short);
  short.write('abc');
  await new Promise((r) => setImmediate(r));
  const ready = reader.readyReads();
  t.equal((ready.next() as IteratorResult<Buffer>).value?.toString(), 'abc');
  const pending = ready.next();
  t.ok(pending instanceof Promise, 'three of ten bytes: the rest is waited for');
  short.destroy();
  await t.rejects(pending as Promise<unknown>, { code: 'ERR_STREAM_PREMATURE_CLOSE' });
});
