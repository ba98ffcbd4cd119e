// The Chat encoder writes a text delta's recognised content frame (ContentChunk, marked through) at
// once (encode-sse.ts `through`, its first branch): the bytes must be those of its general path.
// Every recorded Chat stream and the bench's, as recorded and with seeded mutations of one frame,
// are decoded, then encoded twice: as decoded, and with each content frame's native replaced by a
// plain copy of its fields (not a ContentChunk, so the general path writes it). Same text, and the
// fast path was taken.
import t from 'tap';
import type { CanonicalEvent, NativeFrame } from '../../../lib/chunks.js';
import { ContentChunk } from '../../../lib/dialects/openai-chat/chunk-layout.js';
import { offlineContext } from '../../../lib/offline-context.js';
import { chunk, decodeStages, encodeSse, prng, runSync } from '../../helpers/replay.js';
import { bench, mutate, recorded, sse } from '../fast-path-frames.js';

const ctx = offlineContext({ reqId: 'req_through_text' });

function decoded(bytes: Buffer): CanonicalEvent[] | null {
  try {
    return runSync<CanonicalEvent>(decodeStages({ from: 'openai-chat' }), chunk(bytes, 'whole'), ctx).filter((e): e is CanonicalEvent => typeof e === 'object' && 'type' in e);
  } catch {
    return null;
  }
}

/** the events with each ContentChunk native copied into a plain object (one copy per frame, shared by its events) */
function plain(events: CanonicalEvent[]): CanonicalEvent[] {
  const copies = new Map<NativeFrame, NativeFrame>();
  return events.map((ev) => {
    const native = ev.native;
    if (!(native instanceof ContentChunk)) return ev;
    let copy = copies.get(native);
    if (copy === undefined) {
      copy = { dialect: native.dialect, event: native.event, data: native.data, parsed: native.parsed, modelSpan: native.modelSpan };
      if (native.through !== undefined) copy.through = native.through;
      copies.set(native, copy);
    }
    return { ...ev, native: copy } as CanonicalEvent;
  });
}

t.test('a content frame written at once is the general path text, over every recorded Chat stream', async (t) => {
  const rand = prng(11);
  let fast = 0;
  let streams = 0;
  for (const [name, list] of [...recorded('openai-chat'), bench('openai-chat')]) {
    for (const frames of [list, mutate(list, rand), mutate(list, rand), mutate(list, rand)]) {
      const events = decoded(sse(frames, false));
      if (events === null) continue;
      streams++;
      fast += events.filter((e) => e.type === 'text-delta' && e.native instanceof ContentChunk && e.native.through === 'frame').length;
      t.equal(await encodeSse(events), await encodeSse(plain(events)), name);
    }
  }
  t.ok(streams > 20, `${streams} streams encoded`);
  t.ok(fast > 20, `${fast} text deltas took the fast path`);
});
