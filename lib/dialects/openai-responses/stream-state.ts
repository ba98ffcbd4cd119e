// The Responses stream decoder's state (events.ts): which output item is which canonical block, and
// the checks that an event's output item is open, of the kind the event is for.
import type { CanonicalBlock, CanonicalEvent, JsonObject, NativeFrame } from '../../chunks.js';
import type { Tally } from './items.js';
import { integrityError, outputIndex } from './wire.js';

export interface Slot {
  kind: 'message' | 'tool' | 'thinking' | 'deferred';
  /** canonical block index; -1 while none is open (messages before their first part, deferred items) */
  block: number;
  /** a tool call received argument deltas */
  args: boolean;
  done: boolean;
}

/** The state of one stream. */
export interface State {
  started: boolean;
  /** message-stop or error sent: later events are ignored */
  ended: boolean;
  nextBlock: number;
  /** by output_index */
  readonly slots: Map<number, Slot>;
  readonly tally: Tally;
}

export function open(s: State, slot: Slot, block: CanonicalBlock, native: NativeFrame, out: CanonicalEvent[]): void {
  slot.block = s.nextBlock++;
  out.push({ type: 'block-start', index: slot.block, block, native });
}

export function openSlot(s: State, d: JsonObject, where: string): Slot {
  const slot = s.slots.get(outputIndex(d, where));
  if (slot === undefined || slot.done) throw integrityError(`${where} for an output item that is not open`);
  return slot;
}

/** the open message item at output index `index` (text events: events.ts, its `text` handler and a recognised delta) */
export function messageSlot(s: State, index: number, where: string): Slot {
  const slot = s.slots.get(index);
  if (slot === undefined || slot.done) throw integrityError(`${where} for an output item that is not open`);
  if (slot.kind !== 'message') throw integrityError(`${where} for an output item that is not a message`);
  return slot;
}

