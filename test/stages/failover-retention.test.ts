// What an open stream keeps: the failover loop's generator lives as long as the stream it hands on,
// so whatever it still references is memory per open stream (1,000 slow streams, issue #21). Once
// the stages have taken the answer check's start (its events and decoder) and the held chunks have
// gone on, the loop must not keep them: checked here with weak references and a forced collection
// while the stream is still open.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import type { RoutedRequest } from '../../lib/chunks.js';
import type { UpstreamNote } from '../../lib/notes.js';
import type { AnswerCheck } from '../../lib/providers/answer-check.js';
import type { CheckedStart } from '../../lib/providers/checked-answer.js';
import { failover, type FailoverCall } from '../../lib/providers/failover-loop.js';
import type { UpstreamResponse } from '../../lib/providers/upstream-call.js';
import { makeContext, makeServices } from '../helpers/context.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** An upstream body that hands out `first`, then waits (an open slow stream) until `release`. */
function slowBody(first: Buffer): { body: AsyncIterableIterator<Buffer>; release(): void } {
  let sent = false;
  let release = (): void => undefined;
  const body: AsyncIterableIterator<Buffer> = {
    next: () => {
      if (!sent) {
        sent = true;
        return Promise.resolve({ done: false, value: first });
      }
      return new Promise((resolve) => {
        release = () => resolve({ done: true, value: undefined });
      });
    },
    return: () => Promise.resolve({ done: true, value: undefined }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return { body, release: () => release() };
}

t.test('an open stream: the failover loop keeps neither the checked start nor the held chunks once handed on', async (t) => {
  const services = makeServices();
  (services as { providers: unknown }).providers = { get: () => ({ transport: { requestIdHeader: 'request-id' } }) };
  const ctx = makeContext({ services });
  const routed = { modelId: 'anthropic/claude-opus-5', deployments: [{ providerId: 'sim', protocol: 'anthropic', api: 'messages', upstreamModel: 'claude-opus-5' }] } as unknown as RoutedRequest;
  const upstream = slowBody(Buffer.from('event: message_start\ndata: {}\n\n'));
  let startRef: WeakRef<CheckedStart> | undefined;
  let chunkRef: WeakRef<Buffer> | undefined;
  const call: FailoverCall<never> = {
    prepare: () => () => Promise.resolve({ statusCode: 200, headers: {}, body: upstream.body } as UpstreamResponse),
    streams: () => true,
    check(): AnswerCheck {
      let held: Buffer | undefined;
      return {
        feed(chunk) {
          held = Buffer.from(chunk); // a copy only this check and the loop reference
          chunkRef = new WeakRef(held);
          return true;
        },
        end() {},
        handOff() {
          const start = { kind: 'start', bytes: 31, events: [], decoder: {} } as unknown as CheckedStart;
          startRef = new WeakRef(start);
          return start;
        },
        held() {
          const out = [held!];
          held = undefined;
          return out;
        },
      };
    },
    exhausted: () => new Error('no deployment') as never,
  };
  const gen = failover(ctx as never, routed, call);
  // what a chain's stages do: take the note and the chunk, keep nothing of them (a helper's frame is gone once it returns)
  const took = async (): Promise<[string, boolean, boolean]> => {
    const note = (await gen.next()).value as UpstreamNote;
    const chunk = (await gen.next()).value as Buffer;
    return [note.note, note.checked !== undefined, Buffer.isBuffer(chunk)];
  };
  t.same(await took(), ['upstream', true, true], 'the upstream note carries the checked start; the held chunk goes on');
  // the stream stays open: the loop waits for the next upstream chunk
  const pending = gen.next();
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  t.equal(startRef!.deref() ?? null, null, 'the checked start is not kept while the stream is open');
  t.equal(chunkRef!.deref() ?? null, null, 'nor the held chunk');
  upstream.release();
  t.same(await pending, { done: true, value: undefined }, 'the stream ends');
});
