// What the answer check held back of a stream goes on as it came: the chunks are not joined (a copy of
// the whole first read when the first content frame comes with the rest of the stream), and sse-decode
// skips the start the check decoded (lib/providers/checked-answer.ts) without output before the chunk
// it ends in, so that the chunks cost no extra write. Here the real dispatch, sse-decode and
// provider-decode stages, against a scripted loopback upstream that writes a Chat stream's role chunk
// alone, then its first content frame with the rest; skipped or (where sse-decode cannot skip the
// start: an event bound shorter than it, a mode of its own) read again, the start gives the events
// of the whole stream decoded from scratch.
import t from 'tap';
import type { Config } from '../../lib/config.js';
import type { ChainNote, UpstreamNote } from '../../lib/notes.js';
import { ProviderPool } from '../../lib/providers/pool.js';
import { chain, runStage } from '../../lib/stage.js';
import { upstreamDecoders } from '../../lib/dialects/index.js';
import type { CanonicalEvent, UpstreamMessage } from '../../lib/chunks.js';
import { CHECKED_START } from '../../lib/providers/checked-answer.js';
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

t.test('the chunks held go on as they came, not joined; sse-decode outputs nothing before the start ends', async (t) => {
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
  t.equal(joins, 0, 'the held bytes are not copied into one piece');
  t.same(chunks.map((c) => c.toString('utf8')), WRITES.map((w) => w.toString('utf8')), 'the upstream\'s bytes, as they came');
  const note = notes.find((n): n is UpstreamNote => n.note === 'upstream')!;
  t.match(note.checked, { kind: 'start', bytes: START.length }, 'the note carries the checked start: the role chunk and the first content frame');
  // sse-decode, given them one at a time as the fused runner does: the first chunk lies within the
  // start, so it outputs nothing (no write to the client); the second gives the start's place first
  const decode = sseDecode();
  decode.note!(note, ctx);
  t.equal(decode.step(chunks[0]!, ctx), undefined, 'nothing for a chunk within the start');
  const second = decode.step(chunks[1]!, ctx) as UpstreamMessage[];
  t.equal(second[0], CHECKED_START, 'the start\'s place first');
  t.equal(second.length, FRAMES.length - 1, 'then the frames after it');
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
