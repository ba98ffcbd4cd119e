// The same stage objects run three ways must agree: fused as the server runs them (fuseStages), as
// one composed stage (chain + runStage), and as Node Transforms in a stream/promises pipeline
// (toTransform, the last one handing notes aside). For every client dialect and for the upstream
// bytes whole, byte by byte and in random chunks: the same client text, the same notes in the same
// order, and the same charge once every stage is closed.
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import t from 'tap';
import type { CanonicalRequest, DialectName, RoutedRequest } from '../../lib/chunks.js';
import type { RequestContext } from '../../lib/context.js';
import type { ChainNote, Upstream } from '../../lib/notes.js';
import { chain, runStage, toTransform, type Stage } from '../../lib/stage.js';
import { fuseStages } from '../../lib/fused-chain.js';
import { encodeResponse } from '../../stages/encode.js';
import { integrity } from '../../stages/integrity.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { reserveCredits } from '../../stages/reserve-credits.js';
import { route } from '../../stages/route.js';
import { settle } from '../../stages/settle.js';
import { sseDecode } from '../../stages/sse-decode.js';
import { fixture } from '../helpers/paths.js';
import { clientContext, clientRequest, feedings } from './harness.js';

const BYTES = readFileSync(fixture('upstream', 'anthropic', 'tool-use-parallel.sse'));
const ANSWERED = /"model":"([^"]+)"/.exec(BYTES.toString())![1]!;
const BODIES: Record<string, object> = {
  anthropic: { model: 'anthropic/claude-opus-5', max_tokens: 500, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  'openai-chat': { model: 'anthropic/claude-opus-5', max_completion_tokens: 500, stream: true, messages: [{ role: 'user', content: 'hi' }] },
  'openai-responses': { model: 'anthropic/claude-opus-5', max_output_tokens: 500, stream: false, input: 'hi' },
};
const ENDPOINTS = { anthropic: 'messages', 'openai-chat': 'chat.completions', 'openai-responses': 'responses' } as const;

/** A recorded upstream in place of dispatch: its `upstream` note, then the bytes in the given chunks. */
function recordedUpstream(chunks: Buffer[]): Stage<RoutedRequest, Buffer | ChainNote> {
  const upstream: Upstream = { id: 'sim', protocol: 'anthropic', api: 'messages', upstreamModel: ANSWERED.replace(/-\d{8}$/, ''), stream: true, timing: { sentAt: 0 } };
  return { name: 'dispatch', step: () => [{ note: 'upstream', upstream }, ...chunks] };
}

interface Outcome {
  text: string;
  notes: ChainNote[];
  balance: unknown;
}

function setup(dialect: DialectName, chunks: Buffer[]): { ctx: RequestContext; stages: Stage<unknown, unknown>[]; request: CanonicalRequest } {
  const ctx = clientContext(dialect, { endpoint: ENDPOINTS[dialect as keyof typeof ENDPOINTS], reqId: 'req_same' });
  const stages = [route()(ctx), reserveCredits()(ctx), recordedUpstream(chunks), sseDecode(), providerDecode(), integrity(), encodeResponse()(ctx), settle<string>()(ctx)] as Stage<unknown, unknown>[];
  return { ctx, stages, request: clientRequest(ctx, BODIES[dialect]! as never) };
}

async function finish(ctx: RequestContext, stages: Stage<unknown, unknown>[], text: string, notes: ChainNote[]): Promise<Outcome> {
  for (const s of stages) await s.close?.(ctx, undefined, { status: 200 });
  // wall-clock fields (timings, rate-limit resets) and the hold's id differ between runs: nothing else may
  const stable = JSON.parse(JSON.stringify(notes).replace(/"(sentAt|firstByteAt|endedAt|createdAt|expiresAt)":\d+/g, '"$1":0').replace(/"id":"res_[^"]+"/g, '"id":"res"').replace(/"([a-z-]*reset[a-z-]*)":"[^"]*"/g, '"$1":""')) as ChainNote[];
  return { text: text.replace(/"(created|created_at|completed_at)":\s?\d+/g, '"$1":0'), notes: stable, balance: ctx.services.store.ledger.balanceOf('acme') };
}

async function fused(dialect: DialectName, chunks: Buffer[]): Promise<Outcome> {
  const { ctx, stages, request } = setup(dialect, chunks);
  const notes: ChainNote[] = [];
  let text = '';
  for await (const piece of fuseStages<string>(stages, ctx, (n) => notes.push(n))(Readable.from([request]))) text += piece;
  return finish(ctx, stages, text, notes);
}

async function composed(dialect: DialectName, chunks: Buffer[]): Promise<Outcome> {
  const { ctx, stages, request } = setup(dialect, chunks);
  const [a, b, c, d, e, f, g, h] = stages as Stage<never, never>[];
  const whole = chain(chain(a!, b!, c!, d!), chain(e!, f!, g!, h!));
  const notes: ChainNote[] = [];
  const out = await runStage(whole as Stage<CanonicalRequest, string>, [request], ctx, (n) => notes.push(n));
  return finish(ctx, stages, out.join(''), notes);
}

async function transforms(dialect: DialectName, chunks: Buffer[]): Promise<Outcome> {
  const { ctx, stages, request } = setup(dialect, chunks);
  const notes: ChainNote[] = [];
  let text = '';
  const steps = stages.map((s, i) => toTransform(s, ctx, { last: i === stages.length - 1 }));
  steps.at(-1)!.on('note', (n: ChainNote) => notes.push(n));
  const sink = new Writable({ objectMode: true, write: (piece: string, _e, cb) => ((text += piece), cb()) });
  await pipeline([Readable.from([request]), ...steps, sink]);
  return finish(ctx, stages, text, notes);
}

for (const dialect of Object.keys(BODIES) as DialectName[]) {
  t.test(`${dialect}: fused, chained and as Transforms, for every chunking of the upstream bytes`, async (t) => {
    const reference = await fused(dialect, [BYTES]);
    t.ok(reference.text.length > 100, 'an answer');
    t.same(reference.notes.map((n) => n.note), ['routed', 'headers', 'reserved', 'upstream', 'usage', 'head', 'usage'], 'the notes, in the order the stages learned them');
    t.match(reference.balance, { reserved: 0 }, 'the hold ended');
    t.ok((reference.balance as { spent: number }).spent > 0, 'and the usage was charged');
    for (const f of feedings(BYTES, `fused ${dialect}`)) {
      for (const [how, runner] of [['fused', fused], ['chain + runStage', composed], ['Transforms', transforms]] as const) {
        if (how === 'fused' && f.how === 'whole') continue;
        t.same(await runner(dialect, f.chunks), reference, `${how}, upstream fed ${f.how}: same text, notes and charge`);
      }
    }
  });
}
