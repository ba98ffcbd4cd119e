// Chat Completions SSE (`data: <chunk JSON>` lines, then `data: [DONE]`) → CanonicalEvent, one
// chunk at a time. A stream decoder has per-request state, so each upstream response gets its own
// `ChatStreamDecoder` (`chatDecoder()`).
//
// - message-start on the first chunk that carries an id (Azure sends a preamble chunk with an empty
//   id and `prompt_filter_results` first: skipped); usage zero until the usage chunk.
// - Blocks open one at a time, in order: a text block on the first non-empty `content` (or
//   `refusal`) delta, one tool-call block per `tool_calls[].index` once its id and name are known
//   (argument fragments that arrive before the id are held for that call only). A new id at an
//   index that already has a call is a new call: upstreams that reuse index 0 for every parallel
//   call must not have their calls merged (FAILURE-MODES F6). Opening a block
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
import { randomUUID } from 'node:crypto';
import { emptyUsage, type CanonicalEvent, type JsonObject, type NativeFrame, type StopReason, type Usage } from '../../chunks.js';
import type { UpstreamDecoder } from '../dialect.js';
import { CHAT_REASONING_SIGNATURE } from '../../translate/reasoning-state.js';
import { ChunkLayoutReader, type ChunkLayout } from './chunk-layout.js';
import { recogniseChunk } from './frame-layouts.js';
import { decodeChatCompletion } from './message.js';
import { ThroughRule } from './through.js';
import { chatFrame, errorFromWire, finishFromWire, indexOf, integrityError, isObject, optionalString, parseObject, stopWithCalls, toolCallBlock, usageFromWire } from './wire.js';

interface ToolSlot {
  /** canonical block index; -1 until the id and the name are known */
  block: number;
  id: string;
  name: string;
  /** argument fragments received before the block could open */
  pending: string;
  closed: boolean;
  /** `extra_content` (Gemini's thought signature): the first one sent, put on the block when it opens */
  extra?: JsonObject;
}

export class ChatStreamDecoder implements UpstreamDecoder {
  private readonly through = new ThroughRule();
  /** the content frames, recognised by their layout */
  private readonly contentLayout = new ChunkLayoutReader();
  private started = false;
  private nextBlock = 0;
  /** canonical index of the open block, -1 when none */
  private openIndex = -1;
  /** the tool call whose block is open, if the open block is a tool call */
  private openTool: ToolSlot | undefined;
  /** the open block is a thinking block (reasoning_content) */
  private openThinking = false;
  /** the current call at each `tool_calls[].index` */
  private readonly tools: ToolSlot[] = [];
  /** every call, in the order they appeared (an index reused with a new id adds one) */
  private readonly calls: ToolSlot[] = [];
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
    if (content !== null && this.started) return this.content(content, msg.data);
    const layout = content === null ? recogniseChunk(msg.data) : null;
    const parsed = content?.parsed ?? layout?.parsed ?? parseObject(msg.data, 'chat.completion.chunk');
    const native = chatFrame('chunk', msg.data, parsed);
    if (content !== null) native.modelSpan = content.modelSpan;
    else if (layout !== null) {
      native.modelSpan = layout.modelSpan;
      if (layout.usageSpan !== undefined) native.usageSpan = layout.usageSpan;
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
    this.through.mark(native, parsed, out, content !== null);
    return out;
  }

  /**
   * A content frame in its recognised layout (chunk-layout.ts) once the stream started: what `sse`
   * checks holds by construction (one choice at index 0, a delta of a string content, no
   * finish_reason, no usage, no error), so only what depends on the stream's state is done here,
   * in the same order.
   */
  private content(layout: ChunkLayout, data: string): CanonicalEvent[] {
    const native = chatFrame('chunk', data, layout.parsed);
    native.modelSpan = layout.modelSpan;
    const text = layout.content;
    // most frames: more text for the open text block (no finish yet), its one event in an array of
    // that size (an empty array grows to 17 slots at its first push)
    if (text !== '' && this.stop === undefined && this.openIndex !== -1 && this.openTool === undefined && !this.openThinking) {
      const out: CanonicalEvent[] = [{ type: 'text-delta', index: this.openIndex, text, native }];
      this.through.mark(native, layout.parsed, out, true);
      return out;
    }
    const out: CanonicalEvent[] = [];
    if (text !== '') {
      if (this.stop !== undefined) throw integrityError('content arrived after finish_reason');
      this.text(text, native, out);
    }
    if (this.stop !== undefined && this.usage !== undefined && !this.finished) this.finish(native, out);
    this.through.mark(native, layout.parsed, out, true);
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
        for (const call of calls) {
          if (!isObject(call)) throw integrityError('delta.tool_calls[] must be an object');
          this.toolCall(call, native, out);
        }
      }
    } else if (delta !== undefined && delta !== null) {
      throw integrityError('chunk.choices[].delta must be an object');
    }
    const stop = finishFromWire(choice.finish_reason, 'chunk.choices[]');
    if (stop !== undefined && this.stop === undefined) {
      this.closeOpen(native, out);
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
    if (this.openIndex === -1 || this.openTool !== undefined || this.openThinking) {
      this.closeOpen(native, out);
      this.openIndex = this.nextBlock++;
      out.push({ type: 'block-start', index: this.openIndex, block: { kind: 'text', text: '' }, native });
    }
    out.push({ type: 'text-delta', index: this.openIndex, text, native });
  }

  private toolCall(call: JsonObject, native: NativeFrame, out: CanonicalEvent[]): void {
    const index = indexOf(call, 'delta.tool_calls[]');
    const id = optionalString(call, 'id', 'delta.tool_calls[]');
    let slot = this.tools[index];
    if (slot === undefined || (id !== undefined && id !== '' && slot.id !== '' && slot.id !== id)) {
      slot = { block: -1, id: '', name: '', pending: '', closed: false };
      this.tools[index] = slot;
      this.calls.push(slot);
    }
    if (id !== undefined && id !== '' && slot.id === '') slot.id = id;
    if (isObject(call.extra_content) && slot.extra === undefined) slot.extra = call.extra_content;
    const fn = call.function;
    let args = '';
    if (isObject(fn)) {
      const name = optionalString(fn, 'name', 'delta.tool_calls[].function');
      if (name !== undefined && name !== '' && slot.name === '') slot.name = name;
      args = optionalString(fn, 'arguments', 'delta.tool_calls[].function') ?? '';
    } else if (fn !== undefined && fn !== null) {
      throw integrityError('delta.tool_calls[].function must be an object');
    }
    if (slot.closed) {
      if (args !== '') throw integrityError(`tool call ${index} received arguments after a later block started`);
      return;
    }
    if (slot.block !== -1) {
      if (args !== '') out.push({ type: 'tool-input-delta', index: slot.block, json: args, native });
      return;
    }
    if (slot.id === '' || slot.name === '') {
      slot.pending += args;
      return;
    }
    this.closeOpen(native, out);
    slot.block = this.openIndex = this.nextBlock++;
    this.openTool = slot;
    out.push({ type: 'block-start', index: slot.block, block: toolCallBlock(slot.id, slot.name, slot.extra), native });
    const json = slot.pending + args;
    slot.pending = '';
    if (json !== '') out.push({ type: 'tool-input-delta', index: slot.block, json, native });
  }

  private closeOpen(native: NativeFrame, out: CanonicalEvent[]): void {
    if (this.openIndex === -1) return;
    if (this.openThinking) out.push({ type: 'signature-delta', index: this.openIndex, signature: CHAT_REASONING_SIGNATURE, native });
    this.openThinking = false;
    out.push({ type: 'block-stop', index: this.openIndex, native });
    if (this.openTool !== undefined) this.openTool.closed = true;
    this.openIndex = -1;
    this.openTool = undefined;
  }

  private finish(native: NativeFrame, out: CanonicalEvent[]): void {
    this.closeOpen(native, out);
    // a named call that never got an id (vLLM, NIM, GLM, Kimi upstreams): it gets one of ours, so the
    // client can run it and answer it on the next turn (FAILURE-MODES F14)
    for (const slot of this.calls) {
      if (slot.block !== -1 || slot.id !== '' || slot.name === '') continue;
      slot.id = `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
      slot.block = this.nextBlock++;
      out.push({ type: 'block-start', index: slot.block, block: toolCallBlock(slot.id, slot.name, slot.extra), native });
      if (slot.pending !== '') out.push({ type: 'tool-input-delta', index: slot.block, json: slot.pending, native });
      slot.pending = '';
      out.push({ type: 'block-stop', index: slot.block, native });
    }
    for (let i = 0; i < this.calls.length; i++) {
      const slot = this.calls[i]!;
      if (slot.block === -1) throw integrityError(`tool call ${i} ended without ${slot.id === '' ? 'an id' : 'a name'}`);
    }
    out.push({ type: 'message-delta', stop: stopWithCalls(this.stop!, this.calls.length), usage: { ...this.usage! }, native });
    this.finished = true;
  }
}

/** A fresh decoder for one upstream response. */
export function chatDecoder(): ChatStreamDecoder {
  return new ChatStreamDecoder();
}
