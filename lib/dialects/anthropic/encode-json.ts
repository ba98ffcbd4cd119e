// The non-streaming Messages encoder: collects CanonicalEvents and writes one Message JSON at the
// end. The envelope comes from message-start (the native envelope when the upstream spoke this
// dialect), each block from its block-start (native block when present) plus its deltas, and
// stop_reason / stop_sequence / usage (and any other message_delta fields) from message-delta. The
// client's model value replaces the upstream one, private envelope fields are removed, and an
// optional `gateway` object is added. An upstream `error` event is thrown: nothing was written yet.
// A block that never stopped is a tool call cut by the token limit (stages/integrity.ts): it is left
// out, so the answer (stop_reason max_tokens) holds no tool_use a client could run, and so are the
// blocks after it (Anthropic writes nothing after a block the limit cut; the stream does the same).
// A plain Message of an Anthropic upstream (every event cut from its one body) is written as the
// upstream's text with only those changes made in it instead (through-json.ts).
import type { CanonicalEvent, CanonicalEventType, JsonObject, JsonValue, NativeFrame } from '../../chunks.js';
import type { EncoderInput } from '../../encoder-input.js';
import type { Sealer } from '../../search/seal.js';
import type { Stage } from '../../stage.js';
import { throughMessage } from './through-json.js';
import { sealedCitation, webSearchBlocks } from './web-search.js';
import { messageId, blockToWire, clientEnvelope, integrityError, isObject, parseObject, stopToWire, usageToWire } from './wire.js';

export interface AnthropicJsonOptions {
  /** the model value the client asked for; default `input.routed?.request.model` */
  clientModel?: string | ((input: EncoderInput) => string | undefined);
  /** the `gateway` routing object, added at the top level when defined */
  gatewayInfo?: (input: EncoderInput) => JsonObject | undefined;
  /** the answer to `diagnostics`, added when defined and the upstream gave none */
  diagnostics?: (input: EncoderInput) => JsonValue | undefined;
}

interface Block {
  wire: JsonObject;
  /** concatenated tool-input JSON */
  json: string;
  /** blocks that follow this one in `content` (a gateway search's result block) */
  after?: JsonObject[];
  citationsCopied: boolean;
  stopped: boolean;
}

class Message {
  envelope: JsonObject | undefined;
  readonly blocks: (Block | undefined)[] = [];
  done = false;
  /** the upstream Message every event was cut from; null once one came from elsewhere */
  from: NativeFrame | null | undefined = undefined;

  block(index: number): Block | undefined {
    return this.blocks[index];
  }
}

/** The Messages body every event so far was cut from (NativeFrame.answer), or null. */
function sameAnswer(from: NativeFrame | null | undefined, ev: CanonicalEvent): NativeFrame | null {
  const answer = ev.native?.answer;
  if (from === undefined) return answer !== undefined && answer.dialect === 'anthropic' ? answer : null;
  return from === answer ? from : null;
}

type Apply<T extends CanonicalEventType> = (m: Message, ev: Extract<CanonicalEvent, { type: T }>, sealer: Sealer | undefined) => void;

function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

/** Copy each key of `from` into `into` (existing keys keep their position). */
function merge(into: JsonObject, from: JsonObject, skip?: readonly string[]): void {
  for (const key of Object.keys(from)) if (skip === undefined || !skip.includes(key)) into[key] = from[key]!;
}

/** Usage values are cumulative and override; a null means "not reported" and keeps the earlier value. */
function mergeUsage(into: JsonObject, from: JsonObject): void {
  for (const key of Object.keys(from)) if (from[key] !== null) into[key] = from[key]!;
}

const APPLY: { [T in CanonicalEventType]: Apply<T> } = {
  'message-start': (m, ev) => {
    const native = ev.native?.dialect === 'anthropic' ? ev.native.parsed.message : undefined;
    if (isObject(native)) {
      m.envelope = { ...native };
      if (isObject(native.usage)) m.envelope.usage = { ...native.usage };
      return;
    }
    m.envelope = { id: messageId(ev.id), type: 'message', role: 'assistant', model: ev.model, content: [], stop_reason: null, stop_sequence: null, usage: usageToWire(ev.usage) };
  },
  'block-start': (m, ev, sealer) => {
    if (ev.block.kind === 'web-search') {
      const { use, result } = webSearchBlocks(ev.block.call, sealer);
      m.blocks[ev.index] = { wire: use, json: '', citationsCopied: false, after: [result], stopped: false };
      return;
    }
    const native = ev.native?.dialect === 'anthropic' ? ev.native.parsed.content_block : undefined;
    const wire = isObject(native) ? { ...native } : blockToWire(ev.block);
    m.blocks[ev.index] = wire === undefined ? undefined : { wire, json: '', citationsCopied: false, stopped: false };
  },
  'text-delta': (m, ev) => {
    const b = m.block(ev.index);
    if (b) b.wire.text = text(b.wire.text) + ev.text;
  },
  'thinking-delta': (m, ev) => {
    const b = m.block(ev.index);
    if (b) b.wire.thinking = text(b.wire.thinking) + ev.text;
  },
  'signature-delta': (m, ev) => {
    const b = m.block(ev.index);
    if (b) b.wire.signature = ev.signature;
  },
  'citation-delta': (m, ev, sealer) => {
    const b = m.block(ev.index);
    if (!b) return;
    if (!b.citationsCopied) {
      b.wire.citations = Array.isArray(b.wire.citations) ? [...b.wire.citations] : [];
      b.citationsCopied = true;
    }
    (b.wire.citations as JsonValue[]).push(ev.native === undefined ? sealedCitation(ev.citation, sealer) : ev.citation);
  },
  // Messages shows gateway citations as `citation-delta` on their own text blocks (web search, §11)
  'url-citation': () => undefined,
  'tool-input-delta': (m, ev) => {
    const b = m.block(ev.index);
    if (b) b.json += ev.json;
  },
  'opaque-delta': (m, ev) => {
    // an unknown native delta (e.g. compaction_delta): its string fields append to the block's
    if (ev.native?.dialect !== 'anthropic') return;
    const b = m.block(ev.index);
    if (!b) return;
    for (const key of Object.keys(ev.delta)) {
      const value = ev.delta[key];
      if (key !== 'type' && typeof value === 'string') b.wire[key] = text(b.wire[key]) + value;
    }
  },
  'block-stop': (m, ev) => {
    const b = m.block(ev.index);
    if (!b) return;
    b.stopped = true;
    if (b.json !== '') b.wire.input = parseObject(b.json, `tool input of block ${ev.index}`);
  },
  'message-delta': (m, ev) => {
    const envelope = m.envelope;
    if (envelope === undefined) throw integrityError('message_delta before message_start');
    const usage = isObject(envelope.usage) ? envelope.usage : (envelope.usage = {});
    const native = ev.native?.dialect === 'anthropic' ? ev.native.parsed : undefined;
    if (native !== undefined) {
      if (isObject(native.delta)) merge(envelope, native.delta);
      if (isObject(native.usage)) mergeUsage(usage, native.usage);
      merge(envelope, native, ['type', 'delta', 'usage']);
      return;
    }
    merge(envelope, stopToWire(ev.stop));
    mergeUsage(usage, usageToWire(ev.usage));
  },
  'message-stop': (m) => {
    m.done = true;
  },
  ping: () => undefined,
  'opaque-event': () => undefined,
  error: (_m, ev) => {
    throw ev.error;
  },
};

export function anthropicJsonEncode(input: EncoderInput, opts: AnthropicJsonOptions = {}): Stage<CanonicalEvent, string> {
  const m = new Message();
  return {
    name: 'anthropic-json-encode',
    step(ev) {
      if (m.from !== null) m.from = sameAnswer(m.from, ev);
      (APPLY[ev.type] as (m: Message, ev: CanonicalEvent, sealer: Sealer | undefined) => void)(m, ev, input.sealer);
      return undefined;
    },
    flush() {
      if (m.envelope === undefined) throw integrityError('the response has no message');
      if (!m.done) throw integrityError('stream ended before message_stop');
      const cm = opts.clientModel;
      const clientModel = typeof cm === 'function' ? cm(input) : (cm ?? input.routed?.request.model ?? undefined);
      const gateway = opts.gatewayInfo?.(input);
      if (m.from != null) {
        const diagnostics = Object.hasOwn(m.from.parsed, 'diagnostics') ? undefined : opts.diagnostics?.(input);
        const through = throughMessage(m.from, { model: clientModel, diagnostics, gateway });
        if (through !== null) return [through];
      }
      const out = clientEnvelope(m.envelope, clientModel);
      const content: JsonObject[] = [];
      for (const b of m.blocks) {
        if (b === undefined) continue;
        if (!b.stopped) break; // nothing after a block the limit cut, as in the stream (block-order.ts)
        content.push(b.wire, ...(b.after ?? []));
      }
      out.content = content;
      const diagnostics = 'diagnostics' in out ? undefined : opts.diagnostics?.(input);
      if (diagnostics !== undefined) out.diagnostics = diagnostics;
      if (gateway !== undefined) out.gateway = gateway;
      return [JSON.stringify(out)];
    },
  };
}
