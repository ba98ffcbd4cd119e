// Which upstream Chat frames a Chat client may receive as they came (the native path, as Messages →
// Messages has), instead of having their canonical events re-encoded by encode-sse.ts. A frame goes
// through when what the re-encoder would write for it says the same thing: its events are only
// message-start, text blocks and their deltas, message-delta and message-stop, and the chunk holds
// nothing the re-encoder would have translated or dropped for a reason:
// - one choice at most, with keys the re-encoder knows (`logprobs` only null: the gateway never asks
//   for them; Azure's `content_filter_results` pass as they are);
// - a delta of `role: "assistant"`, `content` and a null or empty `refusal` only (a refusal becomes
//   content, reasoning becomes `reasoning` + `reasoning_details`, tool calls get stable indexes and
//   ids: all of those are re-encoded);
// - the first frame (message-start) says `role: "assistant"` with a string `content`, as the
//   re-encoder's first frame does (a tool call's or a refusal's first frame has `content: null`);
// - `finish_reason` only as the re-encoder would write it, and only on a frame that brought events
//   (a frame without events is not written at all, as today);
// - no `usage` but on the frame that brings message-delta, and that one with empty `choices` (the
//   final usage chunk of decisions §3; its usage is replaced by the gateway's, with the cost); no
//   member named `gateway` (the gateway's own);
// - the frame with message-delta only when the finish_reason already went through, and [DONE] only
//   when that frame did.
// A frame that goes through is marked `through` ('usage' for the one that carries message-delta: the
// encoder writes it at that event, once the validated usage is known). Any other frame is re-encoded
// from its events, as before; both kinds mix in one stream.
import type { CanonicalEvent, JsonObject, JsonValue, NativeFrame } from '../../chunks.js';
import { finishReason } from './client.js';
import { isObject } from './wire.js';

const CHOICE_KEYS: ReadonlySet<string> = new Set(['index', 'delta', 'finish_reason', 'logprobs', 'content_filter_results']);
const DELTA_KEYS: ReadonlySet<string> = new Set(['role', 'content', 'refusal']);
const FINISH: ReadonlySet<JsonValue> = new Set(['stop', 'length', 'content_filter', 'tool_calls']);

function knownKeys(o: JsonObject, keys: ReadonlySet<string>): boolean {
  for (const k in o) if (!keys.has(k)) return false;
  return true;
}

/** The chunk's shape allows it through; `start`: it brought message-start. */
function plainChunk(chunk: JsonObject, start: boolean, usage: boolean): boolean {
  if (Object.hasOwn(chunk, 'gateway')) return false;
  if (!usage && chunk.usage !== undefined && chunk.usage !== null) return false;
  const choices = chunk.choices;
  if (choices === undefined || choices === null) return !start;
  if (!Array.isArray(choices) || choices.length > 1) return false;
  if (choices.length === 0) return !start;
  const choice = choices[0]!;
  if (!isObject(choice) || !knownKeys(choice, CHOICE_KEYS)) return false;
  if (choice.logprobs !== undefined && choice.logprobs !== null) return false;
  const finish = choice.finish_reason;
  if (finish !== undefined && finish !== null && !FINISH.has(finish)) return false;
  const delta = choice.delta;
  if (delta === undefined || delta === null) return !start;
  if (!isObject(delta) || !knownKeys(delta, DELTA_KEYS)) return false;
  if (delta.refusal !== undefined && delta.refusal !== null && delta.refusal !== '') return false;
  if (start ? delta.role !== 'assistant' || typeof delta.content !== 'string' : delta.role !== undefined && delta.role !== 'assistant') return false;
  return true;
}

export class ThroughRule {
  /** canonical indexes of the text blocks (true at each; an array, not a Set: read for every content frame) */
  private readonly text: boolean[] = [];
  /** the finish_reason a frame that went through carried */
  private finish: string | undefined;
  /** the frame with message-delta went through */
  private ended = false;

  /**
   * Marks `native` when the events it brought (`out`) may go to a Chat client as the frame itself.
   * `contentLayout`: a content frame in its recognised layout (chunk-layout.ts), whose shape is plain
   * by construction (one choice, a string content, no finish_reason, no usage): its object is read
   * only as the first frame, which must also say the role.
   */
  mark(native: NativeFrame, out: readonly CanonicalEvent[], contentLayout: boolean): void {
    if (out.length === 0) return;
    let start = false;
    let delta: Extract<CanonicalEvent, { type: 'message-delta' }> | undefined;
    let plain = true;
    for (const ev of out) {
      switch (ev.type) {
        case 'message-start':
          start = true;
          break;
        case 'block-start':
          if (ev.block.kind === 'text') this.text[ev.index] = true;
          else plain = false;
          break;
        case 'text-delta':
        case 'block-stop':
          if (this.text[ev.index] !== true) plain = false;
          break;
        case 'message-delta':
          delta = ev;
          break;
        default:
          plain = false;
      }
    }
    if (!plain) return;
    if (contentLayout && !start) {
      // its one choice has no finish_reason: the usage chunk a client reads has empty choices
      // (decisions §3), so a frame with message-delta is re-encoded
      if (delta === undefined) native.through = 'frame';
      return;
    }
    const chunk = native.parsed;
    if (!plainChunk(chunk, start, delta !== undefined)) return;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    // the usage chunk a client reads has empty choices (decisions §3): a finish with usage is re-encoded
    if (delta !== undefined && choice !== undefined) return;
    const finish = isObject(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
    if (finish !== undefined) {
      if (this.finish !== undefined) return;
      this.finish = finish;
    }
    if (delta !== undefined) {
      if (this.finish === undefined || finishReason(delta.stop) !== this.finish) return;
      this.ended = true;
    }
    native.through = delta !== undefined ? 'usage' : 'frame';
  }

  /** mark() of a content frame in its recognised layout, not the first, whose one event is a text delta for block `index` */
  markText(native: NativeFrame, index: number): void {
    if (this.text[index] === true) native.through = 'frame';
  }

  /** [DONE] goes through when the frame with message-delta did (the re-encoder writes the usage chunk otherwise). */
  markDone(native: NativeFrame): void {
    if (this.ended) native.through = 'frame';
  }
}
