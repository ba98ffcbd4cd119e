// Anthropic Messages SSE → CanonicalEvent. One handler per event name (a map, not a switch); every
// event keeps its native frame (exact `data` string + strict parse) so a Messages client receives
// it byte for byte. Shape checks live here; ordering, indexes and usage rules live in the
// dialect-neutral integrity stage.
import type { CanonicalEvent, JsonObject, NativeFrame } from '../../chunks.js';
import { errorFromAnthropic } from './errors.js';
import { recogniseLayout } from './frame-layouts.js';
import { readTextDelta } from './text-delta.js';
import {
  blockFromWire,
  fullUsageFromWire,
  indexField,
  integrityError,
  isObject,
  objectField,
  parseObject,
  stopFromWire,
  stringField,
  usageFromWire,
} from './wire.js';

export interface SseMessage {
  event: string | undefined;
  data: string;
}

type Handler = (d: JsonObject, native: NativeFrame) => CanonicalEvent;
type DeltaHandler = (index: number, delta: JsonObject, native: NativeFrame) => CanonicalEvent;

/** The envelope checks shared with non-streaming messages. */
export function checkEnvelope(message: JsonObject, where: string): { id: string; model: string } {
  if (Object.hasOwn(message, 'gateway')) throw integrityError(`${where}.gateway collides with the gateway's own metadata`);
  const id = stringField(message, 'id', where);
  if (message.type !== 'message') throw integrityError(`${where}.type must be "message"`);
  if (message.role !== 'assistant') throw integrityError(`${where}.role must be "assistant"`);
  const model = stringField(message, 'model', where);
  if (!Array.isArray(message.content)) throw integrityError(`${where}.content must be an array`);
  return { id, model };
}

const deltaHandlers = new Map<string, DeltaHandler>([
  ['text_delta', (index, d, native) => ({ type: 'text-delta', index, text: stringField(d, 'text', 'delta'), native })],
  ['thinking_delta', (index, d, native) => ({ type: 'thinking-delta', index, text: stringField(d, 'thinking', 'delta'), native })],
  ['signature_delta', (index, d, native) => ({ type: 'signature-delta', index, signature: stringField(d, 'signature', 'delta'), native })],
  ['input_json_delta', (index, d, native) => ({ type: 'tool-input-delta', index, json: stringField(d, 'partial_json', 'delta'), native })],
  ['citations_delta', (index, d, native) => ({ type: 'citation-delta', index, citation: objectField(d, 'citation', 'delta'), native })],
]);

const handlers = new Map<string, Handler>([
  [
    'message_start',
    (d, native) => {
      const message = objectField(d, 'message', 'message_start');
      const { id, model } = checkEnvelope(message, 'message_start.message');
      if ((message.content as unknown[]).length !== 0) throw integrityError('message_start.message.content must be empty');
      const usage = fullUsageFromWire(objectField(message, 'usage', 'message_start.message'), 'message_start.message.usage');
      return { type: 'message-start', id, model, usage, native };
    },
  ],
  [
    'content_block_start',
    (d, native) => {
      const index = indexField(d, 'content_block_start');
      const block = blockFromWire(objectField(d, 'content_block', 'content_block_start'), 'content_block_start.content_block');
      return { type: 'block-start', index, block, native };
    },
  ],
  [
    'content_block_delta',
    (d, native) => {
      const index = indexField(d, 'content_block_delta');
      const delta = objectField(d, 'delta', 'content_block_delta');
      const kind = stringField(delta, 'type', 'content_block_delta.delta');
      const handler = deltaHandlers.get(kind);
      return handler ? handler(index, delta, native) : { type: 'opaque-delta', index, delta, native };
    },
  ],
  ['content_block_stop', (d, native) => ({ type: 'block-stop', index: indexField(d, 'content_block_stop'), native })],
  [
    'message_delta',
    (d, native) => {
      const delta = objectField(d, 'delta', 'message_delta');
      const stop = stopFromWire(delta.stop_reason, delta.stop_sequence, 'message_delta.delta');
      const usage = isObject(d.usage) ? usageFromWire(d.usage, 'message_delta.usage') : {};
      return { type: 'message-delta', stop, usage, native };
    },
  ],
  ['message_stop', (_d, native) => ({ type: 'message-stop', native })],
  ['ping', (_d, native) => ({ type: 'ping', native })],
  [
    'error',
    (d, native) => {
      const error = objectField(d, 'error', 'error');
      const requestId = typeof d.request_id === 'string' ? d.request_id : undefined;
      return { type: 'error', error: errorFromAnthropic(stringField(error, 'type', 'error.error'), stringField(error, 'message', 'error.error'), requestId), native };
    },
  ],
]);

/** Decode one SSE message. Throws GatewayError GW_ERR_INTEGRITY on malformed frames. */
export function decodeAnthropicSse(msg: SseMessage): CanonicalEvent[] {
  const text = msg.event === 'content_block_delta' ? textDeltaEvent(msg.data) : null;
  return text !== null ? [text] : decodeAnthropicFrame(msg);
}

/**
 * Most of a stream: a text delta in its recognised layout, whose index and text are checked
 * already (its one event); null: not that layout (`decodeAnthropicFrame` takes it).
 */
export function textDeltaEvent(data: string): CanonicalEvent | null {
  const text = readTextDelta(data);
  return text === null ? null : { type: 'text-delta', index: text.index, text: text.text, native: text };
}

/** A message that is not a text delta in its recognised layout. */
export function decodeAnthropicFrame(msg: SseMessage): CanonicalEvent[] {
  const event = msg.event;
  if (event === undefined) {
    // a relay's OpenAI-style end marker inside an Anthropic stream: not an event (FAILURE-MODES F8)
    if (msg.data.trim() === '[DONE]') return [];
    throw integrityError('SSE message without an event name');
  }
  const layout = recogniseLayout(event, msg.data);
  const parsed = layout?.parsed ?? parseObject(msg.data, `${event} data`);
  if (parsed.type !== event) throw integrityError(`${event} data.type is ${JSON.stringify(parsed.type ?? null)}, expected "${event}"`);
  const native: NativeFrame = { dialect: 'anthropic', event, data: msg.data, parsed };
  const modelSpan = layout?.spans.model;
  if (modelSpan !== undefined) native.modelSpan = modelSpan;
  const handler = handlers.get(event);
  return [handler ? handler(parsed, native) : { type: 'opaque-event', name: event, data: parsed, native }];
}
