// Chat Completions SSE (`data: <chunk JSON>` lines, then `data: [DONE]`) → CanonicalEvent, one
// chunk at a time. A stream decoder has per-request state, so each upstream response gets its own
// `ChatStreamDecoder` (`chatDecoder()`).
//
// - message-start on the first chunk that carries an id (Azure sends a preamble chunk with an empty
//   id and `prompt_filter_results` first: skipped); usage zero until the usage chunk.
// - Blocks open one at a time, in order: a text block on the first non-empty `content` (or
//   `refusal`) delta, a tool-call block per call (tool-calls.ts: accumulated by `tool_calls[].index`
//   and id, parallel calls whose pieces interleave kept apart, FAILURE-MODES F6). Opening a block
//   closes the one before; text after a tool call opens a new text block. Reasoning deltas
//   (`reasoning_content`, or a string `reasoning`) open a thinking block signed with
//   CHAT_REASONING_SIGNATURE (lib/translate/reasoning-state.ts): unsigned by the model, replayed
//   only to Chat deployments as `reasoning_content` (FAILURE-MODES F23, F27).
// - finish_reason closes the open block; message-delta (stop reason + usage) goes out once both
//   the finish_reason and the usage chunk (which comes after it) are known, or at [DONE];
//   message-stop at [DONE] (or at the end of the body, `end()`).
// - An in-band `{error}` chunk becomes an `error` event.
// Each event keeps its chunk as `native` (dialect 'openai-chat', event 'chunk' or 'done'). The common
// content frame (chunk-layout.ts) and the other frequent ones (frame-layouts.ts) are recognised by
// their layout without the general parser, and frames a Chat client may receive as they came are
// marked `through` (through.ts).
import { emptyUsage, type CanonicalEvent, type JsonObject, type NativeFrame, type StopReason, type Usage } from '../../chunks.js';
import type { UpstreamDecoder } from '../dialect.js';
import { CHAT_REASONING_SIGNATURE } from '../../translate/reasoning-state.js';
import { ChunkLayoutReader, type ContentChunk } from './chunk-layout.js';
import { recogniseChunk } from './frame-layouts.js';
import { decodeChatCompletion } from './message.js';
import { ThroughRule } from './through.js';
import { ToolCalls, type ToolHost, type ToolSlot } from './tool-calls.js';
import { chatFrame, errorFromWire, finishFromWire, indexOf, integrityError, isObject, optionalString, parseObject, stopWithCalls, toolCallBlock, usageFromWire } from './wire.js';

export class ChatStreamDecoder implements UpstreamDecoder, ToolHost {
  private readonly through = new ThroughRule();
  /** the content frames, recognised by their layout */
  private readonly contentLayout = new ChunkLayoutReader();
  private started = false;
  private nextBlock = 0;
  /** canonical index of the open block, -1 when none */
  private openIndex = -1;
  /** the open block is a thinking block (reasoning_content) */
  private openThinking = false;
  /** made at the first tool call (most answers have none) */
  private tools: ToolCalls | undefined;
  /** undefined until a finish_reason arrives */
  private stop: StopReason | undefined;
  private usage: Usage | undefined;
  /** message-delta sent */
  private finished = false;
  /** message-stop sent */
  private done = false;

  sse(msg: { event: string | undefined; data: string }): CanonicalEvent[] {
    if (this.done) throw integrityError('a chunk arrived after [DONE]');
    if (msg.data === '[DONE]') return this.end(chatFrame('done', '[DONE]', {}), true);
    const content = this.contentLayout.read(msg.data);
    if (content !== null && this.started) return this.content(content);
    return this.frame(msg.data, content);
  }

  /** a frame that is not [DONE], nor a content frame in its layout once the stream started (`content`: one before it started) */
  private frame(data: string, content: ContentChunk | null): CanonicalEvent[] {
    const layout = content === null ? recogniseChunk(data) : null;
    const parsed = content?.parsed ?? layout?.parsed ?? parseObject(data, 'chat.completion.chunk');
    let native: NativeFrame;
    if (content !== null) native = content;
    else {
      native = chatFrame('chunk', data, parsed);
      if (layout !== null) {
        native.modelSpan = layout.modelSpan;
        if (layout.usageSpan !== undefined) native.usageSpan = layout.usageSpan;
      }
    }
    if (isObject(parsed.error)) {
      this.done = true;
      return [{ type: 'error', error: errorFromWire(parsed.error), native }];
    }
    const out: CanonicalEvent[] = [];
    if (!this.started && !this.start(parsed, native, out)) return out;
    const choices = parsed.choices;
    if (choices !== undefined && choices !== null) {
      if (!Array.isArray(choices)) throw integrityError('chunk.choices must be an array');
      for (let i = 0; i < choices.length; i++) {
        const choice = choices[i];
        if (!isObject(choice)) throw integrityError(`chunk.choices[${i}] must be an object`);
        this.choice(choice, native, out);
      }
    }
    const usage = parsed.usage;
    if (usage !== undefined && usage !== null) {
      if (!isObject(usage)) throw integrityError('chunk.usage must be an object or null');
      this.usage = usageFromWire(usage, 'chunk.usage');
    }
    if (this.stop !== undefined && this.usage !== undefined && !this.finished) this.finish(native, out);
    this.through.mark(native, out, content !== null);
    return out;
  }

  /** `sse`, the events pushed onto `out`: a content frame that is more text for the open block goes on with no array of its own. */
  sseInto(msg: { event: string | undefined; data: string }, out: unknown[]): void {
    // as `sse` takes it once the stream started
    if (!this.done && this.started && msg.data !== '[DONE]') {
      const content = this.contentLayout.read(msg.data);
      if (content !== null && this.moreText(content)) out.push(this.textDelta(content));
      else pushAll(out, content !== null ? this.contentRest(content) : this.frame(msg.data, null));
      return;
    }
    pushAll(out, this.sse(msg));
  }

  /**
   * A content frame in its recognised layout (chunk-layout.ts) once the stream started: what `sse`
   * checks holds by construction (one choice at index 0, a delta of a string content, no
   * finish_reason, no usage, no error), so only what depends on the stream's state is done here,
   * in the same order. The frame is its events' native frame (its `parsed` object built only if read).
   */
  private content(native: ContentChunk): CanonicalEvent[] {
    // most frames: more text for the open text block (no finish yet), its one event in an array of
    // that size (an empty array grows to 17 slots at its first push)
    if (this.moreText(native)) return [this.textDelta(native)];
    return this.contentRest(native);
  }

  /** the frame is more text for the open text block (no finish yet): its one event, `textDelta` */
  private moreText(native: ContentChunk): boolean {
    return native.content !== '' && this.stop === undefined && this.openIndex !== -1 && this.tools?.live === undefined && !this.openThinking;
  }

  private textDelta(native: ContentChunk): CanonicalEvent {
    this.through.markText(native, this.openIndex);
    return { type: 'text-delta', index: this.openIndex, text: native.content, native };
  }

  /** a content frame that is not `moreText` */
  private contentRest(native: ContentChunk): CanonicalEvent[] {
    const text = native.content;
    const out: CanonicalEvent[] = [];
    if (text !== '') {
      if (this.stop !== undefined) throw integrityError('content arrived after finish_reason');
      this.text(text, native, out);
    }
    if (this.stop !== undefined && this.usage !== undefined && !this.finished) this.finish(native, out);
    this.through.mark(native, out, true);
    return out;
  }

  json(body: string): CanonicalEvent[] {
    return decodeChatCompletion(body);
  }

  /**
   * The end of the stream: [DONE], or (`strict` false) the end of the body without it. Sends what
   * is owed (message-delta, message-stop). A finish_reason is required (without one the stream was
   * cut short), and so is the usage chunk: the gateway always asks for it, and without it nothing
   * could be billed.
   */
  end(native: NativeFrame = chatFrame('done', '[DONE]', {}), strict = false): CanonicalEvent[] {
    if (this.done) return [];
    if (!this.started) {
      if (strict) throw integrityError('the stream ended before any chunk');
      return [];
    }
    const out: CanonicalEvent[] = [];
    if (!this.finished) {
      if (this.stop === undefined) throw integrityError('the stream ended without a finish_reason');
      if (this.usage === undefined) throw integrityError('the stream ended without a usage chunk (stream_options.include_usage)');
      this.finish(native, out);
    }
    this.through.markDone(native);
    out.push({ type: 'message-stop', native });
    this.done = true;
    return out;
  }

  /** message-start from the first chunk with an id; false for a preamble chunk (no id, no content). */
  private start(chunk: JsonObject, native: NativeFrame, out: CanonicalEvent[]): boolean {
    const id = optionalString(chunk, 'id', 'chunk') ?? '';
    if (id === '') {
      const choices = chunk.choices;
      const empty = (choices === undefined || choices === null || (Array.isArray(choices) && choices.length === 0)) && (chunk.usage === undefined || chunk.usage === null);
      if (empty) return false;
      throw integrityError('chunk.id is missing on the first chunk with content');
    }
    const model = optionalString(chunk, 'model', 'chunk') ?? '';
    out.push({ type: 'message-start', id, model, usage: emptyUsage(), native });
    this.started = true;
    return true;
  }

  private choice(choice: JsonObject, native: NativeFrame, out: CanonicalEvent[]): void {
    const index = indexOf(choice, 'chunk.choices[]');
    if (index !== 0) throw integrityError(`chunk.choices[].index is ${index}: only one choice was requested`);
    const delta = choice.delta;
    if (isObject(delta)) {
      const content = optionalString(delta, 'content', 'delta');
      const refusal = optionalString(delta, 'refusal', 'delta');
      const reasoning = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : typeof delta.reasoning === 'string' ? delta.reasoning : '';
      const calls = delta.tool_calls;
      if (reasoning !== '' && this.stop === undefined) this.thinking(reasoning, native, out);
      const hasText = (content !== undefined && content !== '') || (refusal !== undefined && refusal !== '');
      const hasCalls = calls !== undefined && calls !== null;
      if ((hasText || hasCalls) && this.stop !== undefined) throw integrityError('content arrived after finish_reason');
      if (content !== undefined && content !== '') this.text(content, native, out);
      if (refusal !== undefined && refusal !== '') this.text(refusal, native, out);
      if (hasCalls) {
        if (!Array.isArray(calls)) throw integrityError('delta.tool_calls must be an array');
        const tools = (this.tools ??= new ToolCalls(this));
        for (const call of calls) {
          if (!isObject(call)) throw integrityError('delta.tool_calls[] must be an object');
          tools.piece(call, native, out);
        }
      }
    } else if (delta !== undefined && delta !== null) {
      throw integrityError('chunk.choices[].delta must be an object');
    }
    const stop = finishFromWire(choice.finish_reason, 'chunk.choices[]');
    if (stop !== undefined && this.stop === undefined) {
      this.closeOpen(native, out);
      if (this.tools !== undefined) {
        // the calls still waiting for an earlier one's arguments to end (tool-calls.ts)
        this.tools.finish(native, out);
        this.closeOpen(native, out);
      }
      this.stop = stop;
    }
  }

  private thinking(text: string, native: NativeFrame, out: CanonicalEvent[]): void {
    if (!this.openThinking) {
      this.closeOpen(native, out);
      this.openIndex = this.nextBlock++;
      this.openThinking = true;
      out.push({ type: 'block-start', index: this.openIndex, block: { kind: 'thinking', thinking: '', signature: '' }, native });
    }
    out.push({ type: 'thinking-delta', index: this.openIndex, text, native });
  }

  private text(text: string, native: NativeFrame, out: CanonicalEvent[]): void {
    if (this.openIndex === -1 || this.tools?.live !== undefined || this.openThinking) {
      this.closeOpen(native, out);
      this.openIndex = this.nextBlock++;
      out.push({ type: 'block-start', index: this.openIndex, block: { kind: 'text', text: '' }, native });
    }
    out.push({ type: 'text-delta', index: this.openIndex, text, native });
  }

  /** ToolHost: the block of a tool call opens (tool-calls.ts decides when). */
  openTool(slot: ToolSlot, native: NativeFrame, out: CanonicalEvent[]): number {
    this.closeOpen(native, out);
    const index = (this.openIndex = this.nextBlock++);
    out.push({ type: 'block-start', index, block: toolCallBlock(slot.id, slot.name, slot.extra), native });
    return index;
  }

  private closeOpen(native: NativeFrame, out: CanonicalEvent[]): void {
    if (this.openIndex === -1) return;
    if (this.openThinking) out.push({ type: 'signature-delta', index: this.openIndex, signature: CHAT_REASONING_SIGNATURE, native });
    this.openThinking = false;
    out.push({ type: 'block-stop', index: this.openIndex, native });
    this.tools?.closeLive();
    this.openIndex = -1;
  }

  private finish(native: NativeFrame, out: CanonicalEvent[]): void {
    this.closeOpen(native, out);
    out.push({ type: 'message-delta', stop: stopWithCalls(this.stop!, this.tools?.calls.length ?? 0), usage: { ...this.usage! }, native });
    this.finished = true;
  }
}

/** A fresh decoder for one upstream response. */
function pushAll(out: unknown[], events: readonly CanonicalEvent[]): void {
  for (let j = 0; j < events.length; j++) out.push(events[j]);
}

export function chatDecoder(): ChatStreamDecoder {
  return new ChatStreamDecoder();
}
