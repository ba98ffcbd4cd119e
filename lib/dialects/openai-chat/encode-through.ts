// An upstream Chat frame written to a Chat client as it came (the decoder marked it `through`:
// through.ts), with only what the gateway owns changed:
// - `model`: the model the client is served as (decisions §2), spliced into the frame's bytes when
//   the decoder recognised its layout (chunk-layout.ts, frame-layouts.ts), else the frame is
//   re-serialised with it;
// - the first frame (message-start) gains the `gateway` routing object, appended to a recognised
//   frame's bytes;
// - the frame with the final usage (message-delta) gets the gateway's `usage` (validated tokens and
//   the cost settle charges, as the re-encoder writes it) in place of the upstream's, and `gateway`:
//   spliced into a recognised usage chunk's bytes (its `usageSpan`), else re-serialised;
// - [DONE] is written as it is.
// Everything else (ids, `created`, `system_fingerprint`, `service_tier`, `obfuscation`, `logprobs:
// null`, `usage: null` on every chunk, Azure's filter results) is the upstream's.
import type { JsonObject, NativeFrame } from '../../chunks.js';
import { copyWith } from '../../json/copy-with.js';
import { ContentChunk, type ChunkHead } from './chunk-layout.js';

const DONE = 'data: [DONE]\n\n';

export interface ThroughChanges {
  /** the model the client sees, and its JSON text */
  model: string;
  modelJson: string;
  /** the `gateway` object, on the first and on the usage frame */
  gateway?: JsonObject;
  /** the gateway's `usage`, on the usage frame */
  usage?: JsonObject;
  /**
   * a stream's content frames (ContentChunk) share their head (chunk-layout.ts ChunkLayoutReader):
   * the head last written, and its frames' text before the content string with the model spliced
   * in, `data: ` included, made once for the stream; null: the model is the upstream's
   */
  head?: ChunkHead;
  envelope?: string | null;
}

export function throughFrame(native: NativeFrame, changes: ThroughChanges): string {
  if (native.event === 'done') return DONE;
  const { gateway, usage } = changes;
  const span = native.modelSpan;
  const usageSpan = native.usageSpan;
  if (usage !== undefined && span !== undefined && usageSpan !== undefined) return throughUsage(native, changes, usage, span, usageSpan);
  if (usage === undefined && span !== undefined) {
    if (gateway === undefined && native instanceof ContentChunk) return throughContent(native, changes);
    // a recognised layout (chunk-layout.ts, frame-layouts.ts): no whitespace, no `gateway` member, ends with `}`
    const data = upstreamModel(native) === changes.model ? native.data : `${native.data.slice(0, span[0])}${changes.modelJson}${native.data.slice(span[1])}`;
    return gateway === undefined ? `data: ${data}\n\n` : `data: ${data.slice(0, -1)},"gateway":${JSON.stringify(gateway)}}\n\n`;
  }
  if (gateway === undefined && usage === undefined && native.parsed.model === changes.model) return `data: ${native.data}\n\n`;
  const out = copyWith(native.parsed, 'model', changes.model);
  if (usage !== undefined) out.usage = usage;
  if (gateway !== undefined) out.gateway = gateway;
  return `data: ${JSON.stringify(out)}\n\n`;
}

/**
 * A recognised content frame without `gateway` or `usage` to add (throughFrame's, and the encoder's
 * for a text delta's frame): every frame with the same head begins with the same text up to its
 * content string (head.prefix), so the envelope written before it is made once per head.
 */
export function throughContent(native: ContentChunk, changes: ThroughChanges): string {
  const head = native.head;
  if (changes.head !== head) {
    const [from, to] = head.modelSpan;
    changes.envelope = head.model === changes.model ? null : `data: ${head.prefix.slice(0, from)}${changes.modelJson}${head.prefix.slice(to)}`;
    changes.head = head;
  }
  const envelope = changes.envelope;
  return envelope === null || envelope === undefined ? `data: ${native.data}\n\n` : `${envelope}${native.data.slice(head.prefix.length)}\n\n`;
}

/** The frame's top-level `model`, without building a recognised content frame's object. */
function upstreamModel(native: NativeFrame): unknown {
  return native instanceof ContentChunk ? native.model : native.parsed.model;
}

/** A recognised usage chunk (no whitespace, no `gateway` member, ends with `}`): the model and the usage spliced in, `gateway` appended. */
function throughUsage(native: NativeFrame, changes: ThroughChanges, usage: JsonObject, model: [number, number], at: [number, number]): string {
  const data = native.data;
  const head = native.parsed.model === changes.model ? data.slice(0, at[0]) : `${data.slice(0, model[0])}${changes.modelJson}${data.slice(model[1], at[0])}`;
  const gateway = changes.gateway === undefined ? '' : `,"gateway":${JSON.stringify(changes.gateway)}`;
  return `data: ${head}${JSON.stringify(usage)}${data.slice(at[1], -1)}${gateway}}\n\n`;
}

/** The frame carries a finish_reason (so the re-encoder must not write one again). */
export function carriesFinish(native: NativeFrame): boolean {
  if (native instanceof ContentChunk) return false; // a content frame in its recognised layout: finish_reason null
  const choices = native.parsed.choices;
  if (!Array.isArray(choices)) return false;
  const choice = choices[0];
  return typeof choice === 'object' && choice !== null && !Array.isArray(choice) && typeof choice.finish_reason === 'string';
}
