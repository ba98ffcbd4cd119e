// A non-streaming Anthropic Message → the same CanonicalEvent sequence a stream gives: message-start,
// one block-start (carrying the COMPLETE block) + block-stop per content block, message-delta,
// message-stop; a tool_use the token limit cut (`cutCall`) has no block-stop. Native frames are shaped like the stream events they stand for
// (`parsed.message` is the envelope with `content: []`, `parsed.content_block` the whole block), so
// the Messages encoders rebuild the original exactly; their `data` is serialised only if read. Each
// carries the whole body as its `answer`, which a Messages JSON client may get through (through-json.ts).
import type { CanonicalEvent, JsonObject, JsonValue, NativeFrame } from '../../chunks.js';
import { checkEnvelope } from './events.js';
import { blockFromWire, fullUsageFromWire, integrityError, isObject, objectField, parseObject, stopFromWire, syntheticFrame, usageFromWire } from './wire.js';

function checkTokens(usage: JsonObject, key: string): void {
  const value = usage[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw integrityError(`message.usage.${key} must be a non-negative integer`);
  }
}

/**
 * The index of a tool_use the token limit cut, or -1. Its `input` is already an object (what the API
 * made of the pieces it had), so its JSON cannot show the cut; Anthropic documents the sign instead:
 * stop_reason max_tokens with a tool_use as the last content block is an incomplete call, to be asked
 * again with a higher max_tokens. Its block-stop is left out, as a stream cut there leaves it
 * (stages/integrity.ts: a tool call still open at a max_tokens message-delta is a cut call).
 */
function cutCall(stopReason: string, content: JsonValue[]): number {
  const last = content.at(-1);
  return stopReason === 'max_tokens' && isObject(last) && last.type === 'tool_use' ? content.length - 1 : -1;
}

export function decodeAnthropicMessage(body: string): CanonicalEvent[] {
  const message = parseObject(body, 'message');
  const { id, model } = checkEnvelope(message, 'message');
  const stopReason = message.stop_reason;
  if (typeof stopReason !== 'string') throw integrityError('message.stop_reason must be a string');
  const stopSequence = message.stop_sequence ?? null;
  if (stopSequence !== null && typeof stopSequence !== 'string') throw integrityError('message.stop_sequence must be a string or null');
  const usage = objectField(message, 'usage', 'message');
  checkTokens(usage, 'input_tokens');
  checkTokens(usage, 'output_tokens');

  const answer: NativeFrame = { dialect: 'anthropic', event: 'message', data: body, parsed: message };
  const envelope: JsonObject = {};
  for (const key of Object.keys(message)) envelope[key] = key === 'content' ? [] : message[key]!;
  const content = message.content as JsonValue[];
  const cut = cutCall(stopReason, content);
  const events: CanonicalEvent[] = [
    {
      type: 'message-start',
      id,
      model,
      usage: fullUsageFromWire(usage, 'message.usage'),
      native: syntheticFrame('message_start', { type: 'message_start', message: envelope }, answer),
    },
  ];
  for (let index = 0; index < content.length; index++) {
    const block = content[index];
    if (!isObject(block)) throw integrityError(`message.content[${index}] must be an object`);
    events.push({
      type: 'block-start',
      index,
      block: blockFromWire(block, `message.content[${index}]`),
      native: syntheticFrame('content_block_start', { type: 'content_block_start', index, content_block: block }, answer),
    });
    if (index !== cut) events.push({ type: 'block-stop', index, native: syntheticFrame('content_block_stop', { type: 'content_block_stop', index }, answer) });
  }
  events.push(
    {
      type: 'message-delta',
      stop: stopFromWire(stopReason, stopSequence, 'message'),
      usage: usageFromWire(usage, 'message.usage'),
      native: syntheticFrame('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: stopSequence }, usage }, answer),
    },
    { type: 'message-stop', native: syntheticFrame('message_stop', { type: 'message_stop' }, answer) },
  );
  return events;
}
