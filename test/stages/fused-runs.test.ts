// The fused runner's run finding (lib/fused-runs.ts): an output a stage's `steps` passed on unchanged
// (the very object that went in as a value) or a string is not asked whether it is a note (where the
// notes among an output are is found once, as it becomes a level), and a
// last stage's output of frames alone becomes the chain's pieces as it is. Nothing may change for
// the client: run over every recorded Messages stream (the project's and ../shared's), whole, byte
// by byte, in random chunks and with seeded mutations, the native Messages chain fused with the
// stages' `steps` (the fast paths) gives the same pieces, notes and failure as the same stages
// taken one item at a time (no `steps`: every item asked, every piece fed alone), and the fast
// path is really taken (an event is asked once, not at every level it passes).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import t from 'tap';
import type { CanonicalEvent } from '../../lib/chunks.js';
import type { RequestContext } from '../../lib/context.js';
import { fuseStages } from '../../lib/fused-chain.js';
import { allText, notePlaces, runEnd } from '../../lib/fused-runs.js';
import { isNote } from '../../lib/notes.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import { offlineContext } from '../../lib/offline-context.js';
import type { Stage } from '../../lib/stage.js';
import { integrity } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { searchLoop } from '../../stages/search-loop.js';
import { completesAtMessageStop, settle } from '../../stages/settle.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { sseEncode } from '../../stages/sse-encode.js';
import { prng, seedOf } from '../helpers/replay.js';
import { FIXTURES } from '../helpers/paths.js';
import { feedings } from './harness.js';
import { mutated, recordedStreams, type Outcome, oneByOne } from './recorded-streams.js';

const note = (word: string): ChainNote => ({ note: 'headers', headers: { 'x-n': word } });

t.test('notePlaces finds the notes asking each item would find, on seeded random outputs', async (t) => {
  const random = prng(0x5eed);
  for (let round = 0; round < 2000; round++) {
    const inputs: unknown[] = Array.from({ length: 1 + Math.floor(random() * 8) }, (_, k) => ({ type: 'ev', k }));
    const from = Math.floor(random() * inputs.length);
    const taken = from + Math.floor(random() * (inputs.length - from + 1));
    const out: unknown[] = [];
    for (let n = Math.floor(random() * 10); n > 0; n--) {
      const r = random();
      if (r < 0.4 && taken > from) out.push(inputs[from + Math.floor(random() * (taken - from))]);
      else if (r < 0.55) out.push(note(`n${n}`));
      else if (r < 0.7) out.push(`frame ${n}`);
      else if (r < 0.8) out.push(Buffer.from('x'));
      else out.push({ type: 'own', n });
    }
    const asked = out.flatMap((o, k) => (isNote(o) ? [k] : []));
    t.same(notePlaces(out, inputs, from, taken), asked, `round ${round}`);
    t.equal(runEnd(out, 0), asked[0] ?? out.length);
    t.equal(allText(out), out.every((o) => typeof o === 'string'));
  }
  t.equal(runEnd([], 0), 0);
  t.same(notePlaces([], [], 0, 0), []);
});

t.test('notePlaces asks neither the inputs passed on nor strings', async (t) => {
  let asked = 0;
  const value = (k: number): object => ({
    k,
    get note(): undefined {
      asked++;
      return undefined;
    },
  });
  const inputs = [value(0), value(1), value(2), value(3), value(4)];
  // as integrity passes text deltas: the inputs themselves, one replaced by an event of its own, notes
  const out = [inputs[1], value(9), inputs[3], 'frame', note('usage'), inputs[4], inputs[1], note('failed')];
  t.same(notePlaces(out, inputs, 1, 5), [4, 7], 'the notes');
  t.equal(asked, 2, 'only the event of its own and the input passed on out of turn were asked');
});


/**
 * The stages a native Messages stream runs after dispatch (as bench/chain-cost.ts runs them), the
 * recorded bytes in dispatch's place; `wrap` may put a stage of its own after provider-decode.
 */
async function messages(bytes: Buffer, chunks: Buffer[], batched: boolean, wrap?: Stage<unknown, unknown>): Promise<Outcome> {
  const model = /"model":\s*"([^"]+)"/.exec(bytes.toString('latin1'))?.[1] ?? 'model';
  const upstream: Upstream = { id: 'rec', protocol: 'anthropic', api: 'messages', upstreamModel: model, stream: true, timing: { sentAt: 0 } };
  const ctx: RequestContext = { ...offlineContext({ dialect: 'anthropic', endpoint: 'messages', reqId: 'req_runs', log: pino({ level: 'silent' }) }), services: {} as RequestContext['services'] };
  const dispatch: Stage<unknown, unknown> = { name: 'dispatch', step: () => [{ note: 'upstream', upstream, checked: undefined }, ...chunks] };
  let stages = [dispatch, sseDecode(), providerDecode(), integrity(), searchLoop()(ctx), settle<CanonicalEvent>({ completes: completesAtMessageStop })(ctx), sseEncode()] as Stage<unknown, unknown>[];
  if (wrap !== undefined) stages.splice(3, 0, wrap);
  if (!batched) stages = stages.map(oneByOne);
  const notes: string[] = [];
  const pieces: string[] = [];
  let error: string | undefined;
  try {
    for await (const piece of fuseStages<string>(stages, ctx, (n) => notes.push(JSON.stringify(n)))((async function* () { yield 'go'; })())) pieces.push(piece);
  } catch (err) {
    error = `${(err as { code?: string }).code ?? ''} ${(err as Error).message}`;
  }
  return { pieces, notes, error };
}

const recorded = recordedStreams('anthropic');

t.test('the recorded Messages streams', async (t) => {
  t.ok(recorded.length >= 15, `${recorded.length} streams`);
  let failures = 0;
  for (const { name, bytes } of recorded) {
    const whole = await messages(bytes, [bytes], true);
    t.equal(whole.error, undefined, `${name}: read whole without a failure`);
    t.ok(whole.pieces.join('').length > 0, `${name}: an answer`);
    const cases: [string, Buffer, Buffer[]][] = feedings(bytes, `runs ${name}`).map((f) => [f.how, bytes, f.chunks]);
    for (let m = 0; m < 6; m++) {
      const seed = seedOf(`${name} mutation ${m}`);
      const changed = mutated(bytes, seed);
      cases.push([`mutated #${seed}, whole`, changed, [changed]]);
      cases.push([`mutated #${seed}, in random chunks`, changed, feedings(changed, `runs ${name} ${m}`)[2]!.chunks]);
    }
    for (const [how, input, chunks] of cases) {
      const fast = await messages(input, chunks, true);
      const general = await messages(input, chunks, false);
      if (fast.error !== undefined) failures++;
      t.same(fast, general, `${name}, ${how} (${chunks.length} chunks): the same pieces, notes and failure fused as one at a time`);
    }
  }
  t.ok(failures > 0, `some mutations fail (${failures}), so failures were compared too`);
});

t.test('the fast path is taken: an event passed on is asked whether it is a note once, not at every level', async (t) => {
  const bytes = readFileSync(join(FIXTURES, 'upstream', 'anthropic', 'text-basic.sse'));
  let asked = 0;
  let events = 0;
  // each event from provider-decode goes on as an object that counts the reads of its `note`
  const counted = (ev: unknown): unknown => {
    events++;
    return new Proxy(ev as object, { get: (target, key) => (key === 'note' && asked++, Reflect.get(target, key)) });
  };
  const counting: Stage<unknown, unknown> = {
    name: 'counting',
    step: (ev) => [counted(ev)],
    steps: (evs, from, to, out) => {
      for (let k = from; k < to; k++) out.push(counted(evs[k]));
      return to;
    },
  };
  const fast = await messages(bytes, [bytes], true, counting);
  t.equal(fast.error, undefined);
  t.ok(events > 5, `${events} events`);
  // asked once each where counting's outputs are a level (its own outputs: not passed-on inputs);
  // integrity, the search loop and settle pass them on unchanged: not asked again
  t.equal(asked, events, 'each event asked once');
  asked = 0;
  events = 0;
  const general = await messages(bytes, [bytes], false, counting);
  t.same(general, fast, 'the same answer one at a time');
  t.ok(asked >= 3 * events, `one at a time, each event is asked at every stage it enters (${asked} for ${events})`);
});
