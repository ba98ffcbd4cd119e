// The tool calls of one Chat stream (events.ts), accumulated by `tool_calls[].index` and id, each
// becoming one tool-call block. Canonical blocks open one at a time, in order, so parallel calls
// whose argument pieces interleave (index 0, then 1, then 0 again) are neither merged nor refused
// (FAILURE-MODES F6):
// - the first call streams live: its block is open and its pieces go on as they come;
// - a later call waits, its pieces held for it alone, until the live call's arguments look whole
//   (their brackets closed: lib/json/value-end.ts) and its own id and name are known; then the live
//   block closes and the waiting call's block opens with what it held;
// - at the finish every call still waiting opens, gets what it held and closes, in order; a named
//   call that never got an id gets one of ours (vLLM, NIM, GLM, Kimi upstreams; F14).
// A new id at an index that already has a call is a new call (or the call that had that id, when
// pieces interleave at a reused index): upstreams that reuse index 0 for every parallel call must not
// have their calls merged. So is a chunk that names a function again at an
// index whose call's arguments are whole and starts another object (upstreams that never vary the
// index nor the id; it gets an id of ours when it repeats the last one).
import { randomUUID } from 'node:crypto';
import type { CanonicalEvent, JsonObject, NativeFrame } from '../../chunks.js';
import { JsonValueEnd } from '../../json/value-end.js';
import { indexOf, integrityError, isObject, optionalString } from './wire.js';

export interface ToolSlot {
  /** canonical block index; -1 until the block opens */
  block: number;
  id: string;
  name: string;
  /** argument pieces received before the block opened */
  pending: string;
  /** where the arguments end, as they came */
  readonly end: JsonValueEnd;
  closed: boolean;
  /** `extra_content` (Gemini's thought signature): the first one sent, put on the block when it opens */
  extra?: JsonObject;
}

/** The decoder the calls' blocks open in. */
export interface ToolHost {
  /** Closes the open block and opens `slot`'s (block-start) as the open one; gives its index. */
  openTool(slot: ToolSlot, native: NativeFrame, out: CanonicalEvent[]): number;
}

const ourId = (): string => `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

export class ToolCalls {
  /** the current call at each `tool_calls[].index` */
  private readonly atIndex: ToolSlot[] = [];
  /** every call, in the order they appeared */
  readonly calls: ToolSlot[] = [];
  /** the call whose block is open, if the open block is a tool call */
  live: ToolSlot | undefined;
  /** the first call in `calls` whose block has not opened */
  private next = 0;

  constructor(private readonly host: ToolHost) {}

  /** One `delta.tool_calls[]` entry. */
  piece(call: JsonObject, native: NativeFrame, out: CanonicalEvent[]): void {
    const index = indexOf(call, 'delta.tool_calls[]');
    const id = optionalString(call, 'id', 'delta.tool_calls[]') ?? '';
    const fn = call.function;
    let name = '';
    let args = '';
    if (isObject(fn)) {
      name = optionalString(fn, 'name', 'delta.tool_calls[].function') ?? '';
      args = optionalString(fn, 'arguments', 'delta.tool_calls[].function') ?? '';
    } else if (fn !== undefined && fn !== null) {
      throw integrityError('delta.tool_calls[].function must be an object');
    }
    let slot = this.atIndex[index];
    if (id !== '' && slot !== undefined && slot.id !== '' && slot.id !== id) {
      // another call's id at this index: a call seen before (pieces that interleave at a reused index), or a new one
      slot = this.byId(id) ?? this.add(index, id);
      this.atIndex[index] = slot;
    } else if (slot === undefined) {
      slot = this.add(index, id);
    } else if (name !== '' && slot.end.complete && slot.name !== '' && args.trimStart().startsWith('{')) {
      slot = this.add(index, id === '' || id === slot.id ? ourId() : id);
    }
    if (id !== '' && slot.id === '') slot.id = id;
    if (isObject(call.extra_content) && slot.extra === undefined) slot.extra = call.extra_content;
    if (name !== '' && slot.name === '') slot.name = name;
    if (slot.closed) {
      // whitespace after whole arguments says nothing; anything else would make them not JSON
      if (args.trim() !== '') throw integrityError(`tool call ${index} received arguments after its block closed`);
      return;
    }
    if (args !== '') {
      slot.end.feed(args);
      if (slot === this.live) out.push({ type: 'tool-input-delta', index: slot.block, json: args, native });
      else slot.pending += args;
    }
    this.promote(native, out);
  }

  /** The host closed the open block: the live call, if it was one, is whole. */
  closeLive(): void {
    if (this.live === undefined) return;
    this.live.closed = true;
    this.live = undefined;
  }

  /** The finish: every call still waiting opens, gets what it held and closes (the host closes the last). */
  finish(native: NativeFrame, out: CanonicalEvent[]): void {
    for (; this.next < this.calls.length; this.next++) {
      const slot = this.calls[this.next]!;
      if (slot.name === '') throw integrityError(`tool call ${this.next} ended without a name`);
      if (slot.id === '') slot.id = ourId();
      this.open(slot, native, out);
    }
  }

  private byId(id: string): ToolSlot | undefined {
    for (const slot of this.calls) if (slot.id === id) return slot;
    return undefined;
  }

  private add(index: number, id: string): ToolSlot {
    const slot: ToolSlot = { block: -1, id, name: '', pending: '', end: new JsonValueEnd(), closed: false };
    this.atIndex[index] = slot;
    this.calls.push(slot);
    return slot;
  }

  /** Opens the waiting calls that may open now, in order. */
  private promote(native: NativeFrame, out: CanonicalEvent[]): void {
    while (this.next < this.calls.length) {
      const slot = this.calls[this.next]!;
      if (slot.id === '' || slot.name === '') return;
      if (this.live !== undefined && !this.live.end.complete) return;
      this.open(slot, native, out);
      this.next++;
    }
  }

  private open(slot: ToolSlot, native: NativeFrame, out: CanonicalEvent[]): void {
    slot.block = this.host.openTool(slot, native, out);
    this.live = slot;
    if (slot.pending !== '') out.push({ type: 'tool-input-delta', index: slot.block, json: slot.pending, native });
    slot.pending = '';
  }
}

