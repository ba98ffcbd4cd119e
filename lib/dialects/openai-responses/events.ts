// Responses SSE (named events, `sequence_number` increasing) → CanonicalEvent, one event at a time.
// A stream has state (which output item is which block), so each upstream response gets its own
// decoder: `responsesDecoder()`. One handler per event name (a map, not a switch).
//
// - `response.created` (or a first `response.in_progress`) → message-start: response id, model,
//   zero usage. Usage arrives only on the terminal event.
// - `response.output_item.added`: `function_call` → tool-call block (id = call_id, name), its
//   `function_call_arguments.delta`s → tool-input-delta; `message` → a text block opened at its
//   first content part (or first text delta), `output_text.delta` and `refusal.delta` → text-delta;
//   `reasoning` WITH `encrypted_content` → thinking block, `reasoning_summary_text.delta` →
//   thinking-delta, each later summary part preceded by a "\n\n" delta. At the item's
//   `output_item.done` its (final) `encrypted_content` becomes one signature-delta
//   (reasoning-state.ts) before block-stop; should the done item (or, for an item cut short, the
//   terminal Response) have none, the signature carries an empty encrypted part and the next turn
//   does not send the item back.
// - Any other item (a reasoning item without `encrypted_content`, hosted tool calls) is emitted
//   whole at its `output_item.done` (items.ts: an opaque block, or thinking if the done item is
//   signed after all).
// - An item's block-stop at its `output_item.done` is marked `complete` (the upstream said it is
//   done; unless the done item's status is `incomplete`); one closed at the terminal event is not.
// - `response.completed` / `response.incomplete` → close what is open, message-delta (stop
//   reason, usage of the Response), message-stop.
// - `error` and `response.failed` → one `error` event (the first; whatever follows is ignored).
// - Every other event (`response.in_progress`, `*.done`, `content_part.done`, annotations,
//   hosted-tool progress, `reasoning_text.*`, keep-alives, future events) is ignored: what they say
//   is in the items' `done` events. Each emitted event keeps its native frame.
// The common `output_text.delta` frame (delta-layout.ts) and the other frequent events
// (frame-layouts.ts) are recognised by their layout without the general parser, an `in_progress`
// that repeats the `created` frame by comparing their text (repeated-response.ts), and a terminal
// Response frame (or an in_progress that does not repeat created) by comparing its echoed
// instructions and tools with created's texts (echoed-request.ts; a created frame in another layout
// is read with its members' places for that: response-frame.ts, or, when it has the texts an earlier
// stream's created frame had, with those compared: echoed-texts.ts). A recognised delta is its own native frame (the parsed object made only if
// read) and takes a path of its own, the general path's checks and `text` handler without its
// lookups. A delta is marked `through`: a Responses client gets its `delta` and `logprobs` bytes as
// they came (client-encode-items.ts), the sequence number, item id and output index being the
// gateway's; so is a message item's `output_item.done`, whose text bytes the client's final frames keep.
import { emptyUsage, type CanonicalEvent, type JsonObject, type NativeFrame } from '../../chunks.js';
import type { UpstreamDecoder } from '../dialect.js';
import { parseDeltaLayout, type DeltaFrame } from './delta-layout.js';
import { messageSlot, open, openSlot, type Slot, type State } from './stream-state.js';
import { recogniseEvent } from './frame-layouts.js';
import { RepeatedResponse } from './repeated-response.js';
import { EchoedRequest } from './echoed-request.js';
import { parseResponseFrame } from './response-frame.js';
import { completeItemEvents, encryptedOf, saysCompleted } from './items.js';
import { decodeResponsesBody } from './message.js';
import { SUMMARY_SEPARATOR, thinkingFromItem } from '../../translate/reasoning-state.js';
import {
  errorFromResponses, integrityError, isObject, optionalString, outputIndex, parseObject, requireObject, requireString,
  stopFromResponse, usageFromResponse,
} from './wire.js';

type Handler = (s: State, d: JsonObject, native: NativeFrame, out: CanonicalEvent[]) => void;

const TEXT_PARTS: ReadonlySet<string> = new Set(['output_text', 'refusal']);

/** The signature of a reasoning item; without encrypted_content it carries the id only. */
function signatureOf(item: JsonObject, where: string): string {
  return thinkingFromItem(requireString(item, 'id', where), encryptedOf(item, where) ?? '', item.summary).signature;
}

const start: Handler = (s, d, native, out) => {
  if (s.started) return;
  const where = `${d.type as string}.response`;
  const response = requireObject(d, 'response', d.type as string);
  const id = requireString(response, 'id', where);
  const model = optionalString(response, 'model', where) ?? '';
  out.push({ type: 'message-start', id, model, usage: emptyUsage(), native });
  s.started = true;
};

const added: Handler = (s, d, native, out) => {
  const where = 'response.output_item.added';
  const index = outputIndex(d, where);
  if (s.slots.has(index)) throw integrityError(`${where}: output_index ${index} was already added`);
  const item = requireObject(d, 'item', where);
  const slot: Slot = { kind: 'deferred', block: -1, args: false, done: false };
  s.slots.set(index, slot);
  if (item.type === 'message') {
    slot.kind = 'message';
  } else if (item.type === 'function_call') {
    slot.kind = 'tool';
    const id = requireString(item, 'call_id', `${where}.item`);
    const name = requireString(item, 'name', `${where}.item`);
    open(s, slot, { kind: 'tool-call', id, name, input: null }, native, out);
    s.tally.toolCalls = true;
  } else if (item.type === 'reasoning' && encryptedOf(item, `${where}.item`) !== undefined) {
    slot.kind = 'thinking';
    open(s, slot, { kind: 'thinking', thinking: '', signature: '' }, native, out);
  }
};

const text: Handler = (s, d, native, out) => {
  const where = d.type as string;
  const slot = messageSlot(s, outputIndex(d, where), where);
  if (where === 'response.content_part.added') {
    const part = requireObject(d, 'part', where);
    if (slot.block === -1 && typeof part.type === 'string' && TEXT_PARTS.has(part.type)) open(s, slot, { kind: 'text', text: '' }, native, out);
    return;
  }
  if (slot.block === -1) open(s, slot, { kind: 'text', text: '' }, native, out);
  const delta = optionalString(d, 'delta', where) ?? '';
  if (delta !== '') out.push({ type: 'text-delta', index: slot.block, text: delta, native });
};

const args: Handler = (s, d, native, out) => {
  const where = 'response.function_call_arguments.delta';
  const slot = openSlot(s, d, where);
  if (slot.kind !== 'tool') throw integrityError(`${where} for an output item that is not a function_call`);
  const delta = optionalString(d, 'delta', where) ?? '';
  if (delta === '') return;
  slot.args = true;
  out.push({ type: 'tool-input-delta', index: slot.block, json: delta, native });
};

const summary: Handler = (s, d, native, out) => {
  const where = d.type as string;
  const slot = openSlot(s, d, where);
  if (slot.kind !== 'thinking') return; // an unsigned reasoning item: emitted whole at its done event
  if (where === 'response.reasoning_summary_part.added') {
    const at = d.summary_index;
    if (typeof at === 'number' && at > 0) out.push({ type: 'thinking-delta', index: slot.block, text: SUMMARY_SEPARATOR, native });
    return;
  }
  const delta = optionalString(d, 'delta', where) ?? '';
  if (delta !== '') out.push({ type: 'thinking-delta', index: slot.block, text: delta, native });
};

const itemDone: Handler = (s, d, native, out) => {
  const where = 'response.output_item.done';
  const index = outputIndex(d, where);
  const item = requireObject(d, 'item', where);
  const slot = s.slots.get(index) ?? { kind: 'deferred', block: -1, args: false, done: false };
  if (slot.done) throw integrityError(`${where}: output_index ${index} is already done`);
  slot.done = true;
  s.slots.set(index, slot);
  if (slot.block === -1) {
    // deferred items, and messages whose text was not streamed: the whole item now
    s.nextBlock = completeItemEvents(item, s.nextBlock, native, `${where}.item`, s.tally, out);
    return;
  }
  if (slot.kind === 'tool' && !slot.args) {
    const json = optionalString(item, 'arguments', `${where}.item`) ?? '';
    if (json !== '') out.push({ type: 'tool-input-delta', index: slot.block, json, native });
  } else if (slot.kind === 'thinking') {
    out.push({ type: 'signature-delta', index: slot.block, signature: signatureOf(item, `${where}.item`), native });
  }
  // the upstream said the item is done: marked whole unless its status says the limit cut it
  out.push({ type: 'block-stop', index: slot.block, native, complete: saysCompleted(item) });
};

const finish: Handler = (s, d, native, out) => {
  const where = d.type as string;
  const response = requireObject(d, 'response', where);
  const output = Array.isArray(response.output) ? response.output : [];
  for (const [index, slot] of s.slots) {
    if (slot.done || slot.block === -1) continue;
    slot.done = true;
    if (slot.kind === 'thinking') {
      // cut short before its done event: the item as the terminal Response has it, if it does
      const item = output[index];
      const signature = isObject(item) && item.type === 'reasoning' ? signatureOf(item, `${where}.response.output[${index}]`) : undefined;
      if (signature === undefined) throw integrityError(`${where}: reasoning item ${index} never finished`);
      out.push({ type: 'signature-delta', index: slot.block, signature, native });
    }
    // never said done: unmarked, so a last tool call at the limit is held as cut (stages/integrity.ts)
    out.push({ type: 'block-stop', index: slot.block, native });
  }
  const status = where === 'response.completed' ? 'completed' : 'incomplete';
  const stop = stopFromResponse(response, status, s.tally.toolCalls, `${where}.response`);
  const usage = usageFromResponse(response, s.tally.webSearches, `${where}.response`);
  out.push({ type: 'message-delta', stop, usage, native }, { type: 'message-stop', native });
  s.ended = true;
};

const fail: Handler = (s, d, native, out) => {
  const error = d.type === 'error' ? d : isObject(d.response) ? d.response.error : undefined;
  out.push({ type: 'error', error: errorFromResponses(error), native });
  s.ended = true;
};

const HANDLERS = new Map<string, Handler>([
  ['response.created', start],
  ['response.in_progress', start],
  ['response.output_item.added', added],
  ['response.content_part.added', text],
  ['response.output_text.delta', text],
  ['response.refusal.delta', text],
  ['response.function_call_arguments.delta', args],
  ['response.reasoning_summary_part.added', summary],
  ['response.reasoning_summary_text.delta', summary],
  ['response.output_item.done', itemDone],
  ['response.completed', finish],
  ['response.incomplete', finish],
  ['response.failed', fail],
  ['error', fail],
]);

/** the Response events read with created's echoed texts compared (echoed-request.ts) */
const ECHOING: ReadonlySet<string | undefined> = new Set(['response.completed', 'response.incomplete', 'response.in_progress']);

/** Events that may come before `response.created`. */
const OPENERS: ReadonlySet<string> = new Set(['response.created', 'response.in_progress', 'response.failed', 'error']);

export class ResponsesStreamDecoder implements UpstreamDecoder {
  private readonly s: State = { started: false, ended: false, nextBlock: 0, slots: new Map(), tally: { toolCalls: false, webSearches: 0 } };
  private lastSeq = -1;
  private readonly created = new RepeatedResponse();
  private readonly echoed = new EchoedRequest();

  /** Decode one SSE message. Throws GatewayError GW_ERR_INTEGRITY on malformed or out-of-order frames. */
  sse(msg: { event: string | undefined; data: string }): CanonicalEvent[] {
    const layout = parseDeltaLayout(msg.data);
    if (layout !== null) return this.delta(msg.event, layout);
    // an in_progress that repeats the created frame's text is its object again (repeated-response.ts)
    const repeated = msg.event === 'response.in_progress' ? this.created.inProgress(msg.data) : null;
    // a terminal Response frame that echoes created's request texts: compared, not read again (echoed-request.ts)
    const echoed = repeated === null && ECHOING.has(msg.event) ? this.echoed.terminal(msg.event!, msg.data) : null;
    // a created frame with the texts earlier streams' created frames had: compared (echoed-texts.ts)
    const known = msg.event === 'response.created' ? this.echoed.createdKnown(msg.event, msg.data) : null;
    const other = repeated === null && echoed === null && known === null ? recogniseEvent(msg.event, msg.data) : null;
    // a created frame in another layout (tools, say) is read strictly with its members' places, for its echo
    const created = msg.event === 'response.created' && other === null && known === null ? parseResponseFrame(msg.event, msg.data) : null;
    const parsed = repeated ?? echoed ?? other?.parsed ?? known ?? created?.parsed ?? parseObject(msg.data, 'Responses event data');
    const type = parsed.type;
    if (typeof type !== 'string') throw integrityError(`${msg.event ?? 'Responses event'} data.type must be a string`);
    if (msg.event !== undefined && msg.event !== type) throw integrityError(`event ${msg.event} carries data.type "${type}"`);
    const seq = parsed.sequence_number;
    if (typeof seq === 'number') {
      if (seq <= this.lastSeq) throw integrityError(`${type}: sequence_number ${seq} after ${this.lastSeq}`);
      this.lastSeq = seq;
    }
    if (type === 'response.created') {
      this.created.created(msg.data, parsed);
      if (other !== null) this.echoed.createdByLayout(msg.data, parsed);
      else if (created !== null) this.echoed.createdParsed(msg.data, created);
    }
    const handler = HANDLERS.get(type);
    if (handler === undefined || this.s.ended) return [];
    if (!this.s.started && !OPENERS.has(type)) throw integrityError(`${type} before response.created`);
    const out: CanonicalEvent[] = [];
    // a message item's output_item.done: bytes that may go to a Responses client as they came (client-encode-items.ts)
    const kept = other?.spans.text;
    // every member in the literal: no member added later (a second map and an out-of-object store a frame);
    // created's `kept` is where its instructions' JSON text lies (not written through: a Responses
    // client's echo of the instructions may reuse it, client-encode-writer.ts)
    const native: NativeFrame =
      type === 'response.created'
        ? { dialect: 'openai-responses', event: type, data: msg.data, parsed, through: undefined, kept: this.echoed.span }
        : { dialect: 'openai-responses', event: type, data: msg.data, parsed, through: kept === undefined ? undefined : 'frame', kept };
    handler(this.s, parsed, native, out);
    return out;
  }

  /**
   * A delta frame in its recognised layout (its own native frame, through at content index 0): the
   * checks and the handler of the general path above, in their order, without its lookups.
   */
  private delta(event: string | undefined, f: DeltaFrame): CanonicalEvent[] {
    const type = f.event;
    if (event !== undefined && event !== type) throw integrityError(`event ${event} carries data.type "${type}"`);
    const seq = f.sequenceNumber;
    if (seq <= this.lastSeq) throw integrityError(`${type}: sequence_number ${seq} after ${this.lastSeq}`);
    this.lastSeq = seq;
    if (this.s.ended) return [];
    if (!this.s.started) throw integrityError(`${type} before response.created`);
    // the `text` handler's delta part
    const slot = messageSlot(this.s, f.outputIndex, type);
    if (slot.block !== -1) return f.delta === '' ? [] : [{ type: 'text-delta', index: slot.block, text: f.delta, native: f }];
    const out: CanonicalEvent[] = [];
    open(this.s, slot, { kind: 'text', text: '' }, f, out);
    if (f.delta !== '') out.push({ type: 'text-delta', index: slot.block, text: f.delta, native: f });
    return out;
  }

  /** A whole non-streaming Response object. */
  json(body: string): CanonicalEvent[] {
    return decodeResponsesBody(body);
  }
}

/** A fresh decoder for one upstream response. */
export function responsesDecoder(): ResponsesStreamDecoder {
  return new ResponsesStreamDecoder();
}
