// CanonicalEvent → Messages SSE frames (`event: <name>\ndata: <data>\n\n`). Frames that came from an
// Anthropic upstream are written byte for byte from `native.data`; only `message_start` is
// re-serialised when its model must become the requested value or private envelope fields must go
// (and `message_delta` when its usage carries private cost fields). Events translated from other
// dialects are serialised from canonical fields, with block indexes renumbered because opaque
// foreign blocks are dropped, and one after the other (block-order.ts: a block that starts while
// another is open waits for it). Errors become `event: error` frames with the gateway request id.
import type { CanonicalEvent, CanonicalEventType, JsonObject, JsonValue } from '../../chunks.js';
import type { GatewayError } from '../../errors.js';
import type { Sealer } from '../../search/seal.js';
import { BlockOrder } from './block-order.js';
import { anthropicErrorBody } from './errors.js';
import { TextDeltaChunk } from './text-delta.js';
import { sealedCitation, webSearchBlocks } from './web-search.js';
import {
  PRIVATE_ENVELOPE_KEYS,
  PRIVATE_USAGE_KEYS,
  blockToWire,
  clientEnvelope,
  envelopeUnchanged,
  hasPrivateKeys,
  isObject,
  messageId,
  stopToWire,
  usageToWire,
  withoutKeys,
} from './wire.js';

export const ANTHROPIC_KEEPALIVE = 'event: ping\ndata: {"type": "ping"}\n\n';

export interface AnthropicSseOptions {
  /** the model value the client asked for, written into message_start; undefined keeps the upstream value */
  clientModel: string | undefined;
  /** the gateway request id, for `error` frames */
  requestId: string;
  /** the `gateway` object, added to the message_start envelope when defined */
  gateway?: JsonObject | undefined;
  /** the answer to `diagnostics` (diagnostics.ts), added to the envelope when defined */
  diagnostics?: JsonValue | undefined;
  /** seals web-search blocks and citations the gateway made (web-search.ts) */
  sealer?: Sealer | undefined;
}

const TEXT_DELTA_HEAD = 'event: content_block_delta\ndata: ';

function frame(event: string, data: string): string {
  return 'event: ' + event + '\ndata: ' + data + '\n\n';
}

/**
 * A message_start in a recognised layout (frame-layouts.ts: no whitespace, the message object last,
 * its `model` span known) with nothing private to remove: the client's model spliced in place and
 * `diagnostics` and `gateway` appended to the message, as clientEnvelope would order them, without
 * copying and re-serialising the frame.
 */
function splicedStart(data: string, model: [number, number], clientModel: string | undefined, diagnostics: JsonValue | undefined, gateway: JsonObject | undefined): string {
  const head = clientModel === undefined ? data.slice(0, -2) : `${data.slice(0, model[0])}${JSON.stringify(clientModel)}${data.slice(model[1], -2)}`;
  return `${head}${diagnostics === undefined ? '' : `,"diagnostics":${JSON.stringify(diagnostics)}`}${gateway === undefined ? '' : `,"gateway":${JSON.stringify(gateway)}`}}}`;
}

export class AnthropicSseEncoder {
  readonly keepalive = ANTHROPIC_KEEPALIVE;
  /** translated streams only: canonical block index → client index (undefined: dropped block) */
  private readonly indexes: (number | undefined)[] = [];
  private nextIndex = 0;
  /** translated streams: made at the first translated event */
  private order: BlockOrder | undefined;

  readonly clientModel: string | undefined;
  readonly gateway: JsonObject | undefined;
  readonly diagnostics: JsonValue | undefined;
  readonly sealer: Sealer | undefined;

  constructor(private readonly opts: AnthropicSseOptions) {
    this.clientModel = opts.clientModel;
    this.gateway = opts.gateway;
    this.diagnostics = opts.diagnostics;
    this.sealer = opts.sealer;
  }

  /** The frame(s) for one event; '' when the event has nothing to say to a Messages client. */
  encode(ev: CanonicalEvent): string {
    if (ev.type === 'error') return this.fail(ev.error);
    const native = ev.native;
    if (native !== undefined && native.dialect === 'anthropic') {
      if (ev.type === 'message-start') return this.nativeStart(native.parsed, native.data, native.modelSpan);
      if (ev.type === 'message-delta') return this.nativeDelta(native.parsed, native.data);
      // most of a stream: a text delta in its recognised layout (its head a constant: two strings joined, not four)
      if (native instanceof TextDeltaChunk) return TEXT_DELTA_HEAD + native.data + '\n\n';
      return frame(native.event, native.data);
    }
    return this.translate(ev);
  }

  fail(err: GatewayError): string {
    return frame('error', anthropicErrorBody(err, this.opts.requestId));
  }

  private nativeStart(parsed: JsonObject, data: string, modelSpan: [number, number] | undefined): string {
    const message = parsed.message;
    const gateway = this.opts.gateway;
    const diagnostics = isObject(message) && !('diagnostics' in message) ? this.opts.diagnostics : undefined;
    if (!isObject(message) || (gateway === undefined && diagnostics === undefined && envelopeUnchanged(message, this.opts.clientModel))) return frame('message_start', data);
    if (modelSpan !== undefined && !hasPrivateKeys(message, PRIVATE_ENVELOPE_KEYS) && !(isObject(message.usage) && hasPrivateKeys(message.usage, PRIVATE_USAGE_KEYS))) {
      return frame('message_start', splicedStart(data, modelSpan, this.opts.clientModel, diagnostics, gateway));
    }
    const envelope = clientEnvelope(message, this.opts.clientModel);
    if (diagnostics !== undefined) envelope.diagnostics = diagnostics;
    if (gateway !== undefined) envelope.gateway = gateway;
    return frame('message_start', JSON.stringify({ ...parsed, message: envelope }));
  }

  private nativeDelta(parsed: JsonObject, data: string): string {
    const usage = parsed.usage;
    if (!isObject(usage) || !hasPrivateKeys(usage, PRIVATE_USAGE_KEYS)) return frame('message_delta', data);
    return frame('message_delta', JSON.stringify({ ...parsed, usage: withoutKeys(usage, PRIVATE_USAGE_KEYS) }));
  }

  private translate(ev: CanonicalEvent): string {
    return (this.order ??= new BlockOrder((e) => (TRANSLATE[e.type] as (enc: AnthropicSseEncoder, ev: CanonicalEvent) => string)(this, e))).next(ev);
  }

  /** translated streams: give the next client index to canonical block `index` */
  openIndex(index: number): number {
    const client = this.nextIndex++;
    this.indexes[index] = client;
    return client;
  }

  /** A gateway search: its two blocks at once, whole; the canonical block maps to none (its stop says nothing). */
  webSearch(ev: Extract<CanonicalEvent, { type: 'block-start' }>): string {
    if (ev.block.kind !== 'web-search') return '';
    const { use, result } = webSearchBlocks(ev.block.call, this.sealer);
    const useIndex = this.nextIndex++;
    const resultIndex = this.nextIndex++;
    return (
      frame('content_block_start', JSON.stringify({ type: 'content_block_start', index: useIndex, content_block: { ...use, input: {} } })) +
      frame('content_block_delta', JSON.stringify({ type: 'content_block_delta', index: useIndex, delta: { type: 'input_json_delta', partial_json: JSON.stringify(use.input) } })) +
      frame('content_block_stop', JSON.stringify({ type: 'content_block_stop', index: useIndex })) +
      frame('content_block_start', JSON.stringify({ type: 'content_block_start', index: resultIndex, content_block: result })) +
      frame('content_block_stop', JSON.stringify({ type: 'content_block_stop', index: resultIndex }))
    );
  }

  clientIndex(index: number): number | undefined {
    return this.indexes[index];
  }

  delta(canonicalIndex: number, delta: JsonObject): string {
    const index = this.clientIndex(canonicalIndex);
    if (index === undefined) return '';
    return frame('content_block_delta', JSON.stringify({ type: 'content_block_delta', index, delta }));
  }
}

type Translate<T extends CanonicalEventType> = (enc: AnthropicSseEncoder, ev: Extract<CanonicalEvent, { type: T }>) => string;

/** Events from other dialects, one entry per canonical event type. */
const TRANSLATE: { [T in CanonicalEventType]: Translate<T> } = {
  'message-start': (enc, ev) => {
    const message = {
      id: messageId(ev.id),
      type: 'message',
      role: 'assistant',
      model: enc.clientModel ?? ev.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageToWire(ev.usage),
      ...(enc.diagnostics !== undefined ? { diagnostics: enc.diagnostics } : {}),
      ...(enc.gateway !== undefined ? { gateway: enc.gateway } : {}),
    };
    return frame('message_start', JSON.stringify({ type: 'message_start', message }));
  },
  'block-start': (enc, ev) => {
    if (ev.block.kind === 'web-search') return enc.webSearch(ev);
    const block = blockToWire(ev.block);
    if (block === undefined) return ''; // opaque foreign block: dropped, and so are its deltas
    return frame('content_block_start', JSON.stringify({ type: 'content_block_start', index: enc.openIndex(ev.index), content_block: block }));
  },
  'text-delta': (enc, ev) => enc.delta(ev.index, { type: 'text_delta', text: ev.text }),
  'thinking-delta': (enc, ev) => enc.delta(ev.index, { type: 'thinking_delta', thinking: ev.text }),
  'signature-delta': (enc, ev) => enc.delta(ev.index, { type: 'signature_delta', signature: ev.signature }),
  'tool-input-delta': (enc, ev) => enc.delta(ev.index, { type: 'input_json_delta', partial_json: ev.json }),
  'citation-delta': (enc, ev) => enc.delta(ev.index, { type: 'citations_delta', citation: sealedCitation(ev.citation, enc.sealer) }),
  'opaque-delta': () => '',
  // Messages shows gateway citations as `citation-delta` on their own text blocks (web search, §11)
  'url-citation': () => '',
  'block-stop': (enc, ev) => {
    const index = enc.clientIndex(ev.index);
    return index === undefined ? '' : frame('content_block_stop', JSON.stringify({ type: 'content_block_stop', index }));
  },
  'message-delta': (_enc, ev) => frame('message_delta', JSON.stringify({ type: 'message_delta', delta: stopToWire(ev.stop), usage: usageToWire(ev.usage) })),
  'message-stop': () => frame('message_stop', '{"type":"message_stop"}'),
  ping: () => ANTHROPIC_KEEPALIVE,
  'opaque-event': () => '',
  error: (enc, ev) => enc.fail(ev.error),
};
