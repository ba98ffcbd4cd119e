// The start of a stream the answer check decoded goes on with the `upstream` note, not down the chain
// (lib/providers/checked-answer.ts): dispatch hands on only what follows the first content frame, as
// a view of the chunk that held it, so that the bytes held back are neither copied into one piece
// nor read twice. Here the real dispatch, sse-decode and provider-decode stages, against a scripted
// loopback upstream that writes a Chat stream's role chunk alone, then its first content frame with
// the rest: the note carries the start's bytes, the chain the rest; and where sse-decode cannot skip
// the start (an event bound shorter than the start, a mode of its own) it reads those bytes itself,
// giving the events of the whole stream decoded from scratch.
import t from 'tap';
import type { Config } from '../../lib/config.js';
import type { ChainNote, UpstreamNote } from '../../lib/notes.js';
import { ProviderPool } from '../../lib/providers/pool.js';
import { chain, runStage } from '../../lib/stage.js';
import { upstreamDecoders } from '../../lib/dialects/index.js';
import type { CanonicalEvent } from '../../lib/chunks.js';
import { dispatch } from '../../stages/dispatch.js';
import { providerDecode } from '../../stages/provider-decode.js';
import { routeRequest } from '../../stages/route.js';
import { sseDecode, type SseDecodeOptions } from '../../stages/sse-decode.js';
import { chatSse, delta, SSE, scriptedUpstream, usageChunk } from '../failure-modes/upstream.js';
import { makeServices, testConfig } from '../helpers/context.js';
import { clientContext, clientRequest } from './harness.js';

const FRAMES = chatSse('up-chat', [delta({ role: 'assistant', content: '' }), delta({ content: 'Bon' }), delta({ content: 'jour é😀' }), delta({}, 'stop'), usageChunk(9, 3)]).split(/(?<=\n\n)/);
/** the role chunk alone, then the first content frame with everything after it */
const WRITES = [FRAMES[0]!, FRAMES.slice(1).join('')].map((w) => Buffer.from(w, 'utf8'));
const WHOLE = Buffer.concat(WRITES);
/** the start the check decodes: the role chunk and the first content frame */
const START = Buffer.from(FRAMES[0]! + FRAMES[1]!, 'utf8');

const up = await scriptedUpstream({
  'up-chat': { headers: SSE, body: WRITES.map((w) => w.toString('utf8')), gapMs: 20 },
  // the first content frame ends its write: nothing follows the start in its chunk
  'up-chat-cut': { headers: SSE, body: [FRAMES[0]! + FRAMES[1]!, FRAMES.slice(2).join('')], gapMs: 20 },
});
t.teardown(() => up.close());
const config: Config = testConfig({
  providers: [{ id: 'up', protocol: 'openai', baseUrl: `${up.url}/v1`, apiKey: 'sk-up' }],
  models: ['up-chat', 'up-chat-cut'].map((model) => ({ id: `m/${model}`, deployments: [{ provider: 'up', model, api: 'chat' }], pricing: { input: 1, output: 1 }, maxOutputTokens: 4096 })),
});
const services = { ...makeServices(config), providers: new ProviderPool(config, null) };
t.teardown(() => services.providers.close());

const context = (): ReturnType<typeof clientContext> => clientContext('openai-chat', { config, services });
const routedIn = (ctx: ReturnType<typeof clientContext>, model = 'up-chat'): ReturnType<typeof routeRequest> =>
  routeRequest(clientRequest(ctx, { model: `m/${model}`, stream: true, messages: [{ role: 'user', content: 'hi' }] }), ctx);

/** the whole stream decoded from its first byte by a fresh decoder */
function fromScratch(): CanonicalEvent[] {
  const decoder = upstreamDecoders['openai-chat']!();
  const events: CanonicalEvent[] = [];
  for (const frame of FRAMES) {
    const data = frame.replace(/^data: /, '').replace(/\n\n$/, '');
    events.push(...decoder.sse({ event: undefined, data }));
  }
  events.push(...(decoder.end?.() ?? []));
  return events;
}

t.test('the checked start goes with the note; only what follows it goes down the chain, uncopied', async (t) => {
  const ctx = context();
  const routed = routedIn(ctx);
  const notes: ChainNote[] = [];
  // every copy of the held bytes into one piece
  const concat = Buffer.concat;
  let joins = 0;
  Buffer.concat = function (list: readonly Uint8Array[], length?: number): Buffer {
    const joined = concat.call(Buffer, list, length);
    if (joined.length === WHOLE.length) joins++;
    return joined;
  } as typeof Buffer.concat;
  let chunks: Buffer[];
  try {
    chunks = (await runStage(dispatch()(ctx), [routed], ctx, (n) => notes.push(n))) as Buffer[];
  } finally {
    Buffer.concat = concat;
  }
  t.equal(up.calls('up-chat').length, 1, 'one upstream call');
  t.equal(Buffer.concat(chunks).toString('utf8'), WHOLE.subarray(START.length).toString('utf8'), 'the chain gets what follows the first content frame');
  t.equal(joins, 0, 'the held bytes are not copied into one piece');
  const note = notes.find((n): n is UpstreamNote => n.note === 'upstream')!;
  const start = note.checked;
  t.equal(start?.kind, 'start', 'the note carries the checked start');
  if (start?.kind !== 'start') return;
  t.equal(Buffer.concat([...start.pieces]).toString('utf8'), START.toString('utf8'), 'its bytes: the role chunk and the first content frame');
  t.equal(start.bytes, START.length, 'and their count');
});

const cannotSkip: [string, SseDecodeOptions][] = [
  ['an event bound shorter than the start', { maxEventSize: START.length - 1 }],
  ['a mode of its own', { mode: () => 'sse' }],
];
for (const [why, opts] of cannotSkip) {
  t.test(`sse-decode reads the checked start itself when it cannot skip it: ${why}`, async (t) => {
    const ctx = context();
    const events = await runStage(chain(dispatch()(ctx), sseDecode(opts), providerDecode()), [routedIn(ctx)], ctx);
    t.same(events, fromScratch(), 'the events of the whole stream decoded from scratch');
  });
}

for (const model of ['up-chat', 'up-chat-cut']) {
  t.test(`skipped, the checked start gives the events of the whole stream decoded from scratch: ${model}`, async (t) => {
    const ctx = context();
    const events = await runStage(chain(dispatch()(ctx), sseDecode(), providerDecode()), [routedIn(ctx, model)], ctx);
    t.same(events, fromScratch());
    t.equal(up.calls(model).length > 0, true, 'the upstream answered');
  });
}
