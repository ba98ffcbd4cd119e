// A stage's `outputsNoNotes` promise (lib/stage.ts): the fused runner does not ask `isNote` of the
// outputs of sse-decode, provider-decode, settle and sse-encode. Nothing may change for the client:
// over every recorded stream of each dialect (the project's and ../shared's), whole, byte by byte, in
// random chunks and with seeded mutations, the stages as they are give the same pieces, notes and
// failure as the same stages without the promise (today's runner, every new object asked) and as
// one item at a time (no `steps` either). The promise is really relied on (the outputs of a stage
// that made it are never asked), and a stage that breaks it fails wherever every output is asked
// anyway: runStage, toTransform and chain.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pino from 'pino';
import t from 'tap';
import type { CanonicalEvent, DialectName, JsonObject, RoutedRequest } from '../../lib/chunks.js';
import type { RequestContext } from '../../lib/context.js';
import { dialects } from '../../lib/dialects/index.js';
import { fuseStages } from '../../lib/fused-chain.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import { offlineContext } from '../../lib/offline-context.js';
import { chain, runStage, toTransform, type Stage } from '../../lib/stage.js';
import { integrity } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { searchLoop } from '../../stages/search-loop.js';
import { completesAtMessageStop, settle } from '../../stages/settle.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { sseEncode } from '../../stages/sse-encode.js';
import { seedOf } from '../helpers/replay.js';
import { FIXTURES } from '../helpers/paths.js';
import { feedings } from './harness.js';
import { mutated, recordedStreams, type Outcome, type Upstreams, oneByOne } from './recorded-streams.js';

const API = { anthropic: 'messages', 'openai-chat': 'chat', 'openai-responses': 'responses' } as const;
const ENDPOINT = { anthropic: 'messages', 'openai-chat': 'chat.completions', 'openai-responses': 'responses' } as const;

/** The stage without its promise: the runner asks its outputs as it asks any stage's. */
function unpromised(stage: Stage<unknown, unknown>): Stage<unknown, unknown> {
  if (stage.outputsNoNotes !== true) return stage;
  return {
    name: stage.name,
    step: (item, ctx) => stage.step(item, ctx),
    ...(stage.steps !== undefined ? { steps: (items: readonly unknown[], from: number, to: number, out: unknown[], ctx: RequestContext) => stage.steps!(items, from, to, out, ctx) } : {}),
    ...(stage.flush !== undefined ? { flush: (ctx: RequestContext) => stage.flush!(ctx) } : {}),
    ...(stage.note !== undefined ? { note: (n: ChainNote, ctx: RequestContext) => stage.note!(n, ctx) } : {}),
  };
}


/** route's note for a Responses client, whose encoder echoes the request (as bench/chain-cost.ts gives it) */
function routedNote(dialect: Upstreams, model: string): ChainNote[] {
  if (dialect !== 'openai-responses') return [];
  const request = dialects['openai-responses'].validate!({ model, input: 'hi', stream: true } as JsonObject);
  const routed: RoutedRequest = {
    request, modelId: model, deployments: [], routed: false, routingLatencyMs: null, maxTokens: 256,
    modelMaxOutputTokens: 4096, modelReasoning: false, maxTokensCappedTo: null, thinkingBudget: null,
  };
  return [{ note: 'routed', routed }];
}

/**
 * The stages a same-dialect stream runs after dispatch (as bench/chain-cost.ts runs them), the
 * recorded bytes in dispatch's place; `wrap` may put a stage of its own after provider-decode.
 */
async function answer(dialect: Upstreams, bytes: Buffer, chunks: Buffer[], how: (s: Stage<unknown, unknown>) => Stage<unknown, unknown>, wrap?: Stage<unknown, unknown>): Promise<Outcome> {
  const model = /"model":\s*"([^"]+)"/.exec(bytes.toString('latin1'))?.[1] ?? 'model';
  const upstream: Upstream = { id: 'rec', protocol: dialect === 'anthropic' ? 'anthropic' : 'openai', api: API[dialect], upstreamModel: model, stream: true, timing: { sentAt: 0 } };
  const ctx: RequestContext = { ...offlineContext({ dialect: dialect as DialectName, endpoint: ENDPOINT[dialect], reqId: 'req_quiet', log: pino({ level: 'silent' }) }), services: {} as RequestContext['services'] };
  const first = [...routedNote(dialect, model), { note: 'upstream', upstream, checked: undefined }];
  const dispatch: Stage<unknown, unknown> = { name: 'dispatch', step: () => [...first, ...chunks] };
  const stages = [dispatch, sseDecode(), providerDecode(), integrity(), searchLoop()(ctx), settle<CanonicalEvent>({ completes: completesAtMessageStop })(ctx), sseEncode()] as Stage<unknown, unknown>[];
  if (wrap !== undefined) stages.splice(3, 0, wrap);
  const notes: string[] = [];
  const pieces: string[] = [];
  let error: string | undefined;
  try {
    for await (const piece of fuseStages<string>(stages.map(how), ctx, (n) => notes.push(JSON.stringify(n)))((async function* () { yield 'go'; })())) pieces.push(piece);
  } catch (err) {
    error = `${(err as { code?: string }).code ?? ''} ${(err as Error).message}`;
  }
  // the Responses encoder stamps the wall clock (created_at): nothing else may differ between runs
  return { pieces: pieces.map((p) => p.replace(/"(created|created_at|completed_at)":\d+/g, '"$1":0')), notes, error };
}

const as = (s: Stage<unknown, unknown>): Stage<unknown, unknown> => s;

t.test('the stream stages promise no notes; integrity and the search loop, which make them, do not', async (t) => {
  const ctx: RequestContext = { ...offlineContext({ dialect: 'anthropic', endpoint: 'messages' }), services: {} as RequestContext['services'] };
  t.equal(sseDecode().outputsNoNotes, true);
  t.equal(providerDecode().outputsNoNotes, true);
  t.equal(settle()(ctx).outputsNoNotes, true);
  t.equal(sseEncode().outputsNoNotes, true);
  t.equal(integrity().outputsNoNotes, undefined);
  t.equal(searchLoop()(ctx).outputsNoNotes, undefined);
});

for (const dialect of ['anthropic', 'openai-chat', 'openai-responses'] as const) {
  t.test(`the recorded ${dialect} streams: the same with the promise as without it and one at a time`, async (t) => {
    const recorded = recordedStreams(dialect).map((r) => ({ name: `${dialect}/${r.name}`, bytes: r.bytes }));
    t.ok(recorded.length >= 5, `${recorded.length} streams`);
    let failures = 0;
    let answered = 0;
    for (const { name, bytes } of recorded) {
      const cases: [string, Buffer, Buffer[]][] = feedings(bytes, `quiet ${name}`).map((f) => [f.how, bytes, f.chunks]);
      for (let m = 0; m < 4; m++) {
        const seed = seedOf(`${name} quiet mutation ${m}`);
        const changed = mutated(bytes, seed);
        cases.push([`mutated #${seed}, whole`, changed, [changed]]);
        cases.push([`mutated #${seed}, in random chunks`, changed, feedings(changed, `quiet ${name} ${m}`)[2]!.chunks]);
      }
      for (const [how, input, chunks] of cases) {
        const promised = await answer(dialect, input, chunks, as);
        const asked = await answer(dialect, input, chunks, unpromised);
        const single = await answer(dialect, input, chunks, oneByOne);
        if (promised.error !== undefined) failures++;
        else answered++;
        t.same(promised, asked, `${name}, ${how} (${chunks.length} chunks): the same pieces, notes and failure as without the promise`);
        t.same(promised, single, `${name}, ${how}: the same as one item at a time`);
      }
    }
    t.ok(answered > 0, `some streams are answered (${answered})`);
    t.ok(failures > 0, `some fail (${failures}), so failures were compared too`);
  });
}

/** each of the events of `stage` as an object that counts the reads of its `note` */
function counting(promise: boolean): { stage: Stage<unknown, unknown>; asked: () => number; events: () => number } {
  let asked = 0;
  let events = 0;
  const counted = (ev: unknown): unknown => {
    events++;
    // a copy (not the event itself): the stage's own new object, which notePlaces would ask
    return new Proxy({ ...(ev as object) }, { get: (target, key) => (key === 'note' && asked++, Reflect.get(target, key)) });
  };
  const stage: Stage<unknown, unknown> = {
    name: 'counting',
    ...(promise ? { outputsNoNotes: true as const } : {}),
    step: (ev) => [counted(ev)],
    steps: (evs, from, to, out) => {
      for (let k = from; k < to; k++) out.push(counted(evs[k]));
      return to;
    },
  };
  return { stage, asked: () => asked, events: () => events };
}

t.test('the promise is relied on: the outputs of a stage that made it are not asked whether they are notes', async (t) => {
  const bytes = readFileSync(join(FIXTURES, 'upstream', 'anthropic', 'text-basic.sse'));
  const quiet = counting(true);
  const got = await answer('anthropic', bytes, [bytes], as, quiet.stage);
  t.equal(got.error, undefined);
  t.ok(quiet.events() > 5, `${quiet.events()} events`);
  t.equal(quiet.asked(), 0, 'none asked');
  const loud = counting(false);
  t.same(await answer('anthropic', bytes, [bytes], as, loud.stage), got, 'the same answer without the promise');
  t.equal(loud.asked(), loud.events(), 'without it, each asked once');
});

/** a stage that promises no notes and outputs one after its input */
const liar = (): Stage<unknown, unknown> => ({
  name: 'liar',
  outputsNoNotes: true,
  step: (item) => [item, { note: 'headers', headers: { 'x-lie': '1' } }],
});

/** the message a run failed with (toTransform hands on an internal GatewayError whose cause is the stage's) */
async function failure(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? cause.message : (err as Error).message;
  }
  return 'no failure';
}

t.test('a stage that breaks the promise fails where every output is asked: runStage, toTransform, chain', async (t) => {
  const ctx = offlineContext({ dialect: 'anthropic', endpoint: 'messages' });
  await t.rejects(runStage(liar(), ['a'], ctx), /stage liar promised outputsNoNotes but output a 'headers' note/, 'runStage');
  const sink = new Writable({ objectMode: true, write: (_c, _e, cb) => cb() });
  t.match(await failure(pipeline(Readable.from(['a']), toTransform(liar(), ctx, { last: false }), sink)), /stage liar promised outputsNoNotes/, 'toTransform, not last');
  const sink2 = new Writable({ objectMode: true, write: (_c, _e, cb) => cb() });
  t.match(await failure(pipeline(Readable.from(['a']), toTransform(liar(), ctx), sink2)), /stage liar promised outputsNoNotes/, 'toTransform, last');
  const pass: Stage<unknown, unknown> = { name: 'pass', step: (item) => [item] };
  await t.rejects(runStage(chain(liar(), pass), ['a'], ctx), /promised outputsNoNotes/, 'chain');
  // a stage that keeps it: nothing thrown, its values go on
  const honest: Stage<unknown, unknown> = { name: 'honest', outputsNoNotes: true, step: (item) => [item, `${String(item)}!`] };
  t.same(await runStage(honest, ['a', 'b'], ctx), ['a', 'a!', 'b', 'b!']);
  t.same(await runStage(chain(honest, pass), ['a'], ctx), ['a', 'a!']);
  // the notes it hears go on past it (the runner's doing, not its output): no failure
  const heard: ChainNote = { note: 'headers', headers: { 'x-heard': '1' } };
  const seen: ChainNote[] = [];
  t.same(await runStage(honest, [heard, 'a'], ctx, (n) => seen.push(n)), ['a', 'a!']);
  t.same(await runStage(chain(pass, honest, pass), [heard, 'a'], ctx, (n) => seen.push(n)), ['a', 'a!']);
  const written: unknown[] = [];
  const emitted: unknown[] = [];
  const last = toTransform(honest, ctx);
  last.on('note', (n) => emitted.push(n));
  await pipeline(Readable.from([heard, 'b']), toTransform(honest, ctx, { last: false }), last, new Writable({ objectMode: true, write: (c, _e, cb) => (written.push(c), cb()) }));
  t.same(seen, [heard, heard], 'runStage and chain hand the heard note on');
  t.same(emitted, [heard], 'toTransform hands the heard note on');
  t.same(written, ['b', 'b!', 'b!', 'b!!'], 'and the values');
});
