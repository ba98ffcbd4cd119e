// A non-streaming `chat.completion` body → the same CanonicalEvent sequence a stream gives:
// message-start, a text block carrying its whole text (content, then refusal), one tool-call block
// per tool call (its `arguments` string as one tool-input-delta, byte for byte), message-delta with
// the stop reason and usage, message-stop. Every event carries the whole body as its native frame.
import { randomUUID } from 'node:crypto';
import { emptyUsage, type CanonicalEvent, type JsonObject, type JsonValue, type NativeFrame, type StopReason } from '../../chunks.js';
import { recogniseCompletion } from './completion-layout.js';
import { CHAT_REASONING_SIGNATURE } from '../../translate/reasoning-state.js';
import { chatFrame, finishFromWire, integrityError, isObject, optionalString, parseObject, stopWithCalls, toolCallBlock, usageFromWire } from './wire.js';

function requiredString(obj: JsonObject, key: string, where: string): string {
  const value = obj[key];
  if (typeof value !== 'string' || value === '') throw integrityError(`${where}.${key} must be a non-empty string`);
  return value;
}

function toolCalls(value: JsonValue | undefined): JsonValue[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw integrityError('message.tool_calls must be an array or null');
  return value;
}

export function decodeChatCompletion(body: string): CanonicalEvent[] {
  // a plain answer in the common compact layout is parsed without the general parser (as strictly)
  const recognised = recogniseCompletion(body);
  const completion = recognised === null ? parseObject(body, 'chat.completion') : recognised.parsed;
  const native: NativeFrame = recognised === null ? chatFrame('chat.completion', body, completion) : { dialect: 'openai-chat', event: 'chat.completion', data: body, parsed: completion, modelSpan: recognised.modelSpan };
  if (isObject(completion.error)) throw integrityError('chat.completion carries an error object');
  const id = requiredString(completion, 'id', 'chat.completion');
  const model = optionalString(completion, 'model', 'chat.completion') ?? '';
  const choices = completion.choices;
  if (!Array.isArray(choices) || choices.length !== 1) throw integrityError('chat.completion.choices must hold exactly one choice');
  const choice = choices[0];
  if (!isObject(choice)) throw integrityError('chat.completion.choices[0] must be an object');
  const message = choice.message;
  if (!isObject(message)) throw integrityError('chat.completion.choices[0].message must be an object');
  if (!isObject(completion.usage)) throw integrityError('chat.completion.usage is missing');
  const usage = usageFromWire(completion.usage, 'chat.completion.usage');

  const events: CanonicalEvent[] = [
    { type: 'message-start', id, model, usage: emptyUsage(), native },
  ];
  let index = 0;
  // a reasoning model's thinking (DeepSeek, Kimi, vLLM): a thinking block of the gateway's (events.ts)
  const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : typeof message.reasoning === 'string' ? message.reasoning : '';
  if (reasoning !== '') {
    events.push({ type: 'block-start', index, block: { kind: 'thinking', thinking: reasoning, signature: CHAT_REASONING_SIGNATURE }, native }, { type: 'block-stop', index, native });
    index++;
  }
  const text = (optionalString(message, 'content', 'message') ?? '') + (optionalString(message, 'refusal', 'message') ?? '');
  if (text !== '') {
    events.push({ type: 'block-start', index, block: { kind: 'text', text }, native }, { type: 'block-stop', index, native });
    index++;
  }
  const calls = toolCalls(message.tool_calls);
  for (let i = 0; i < calls.length; i++) {
    const where = `message.tool_calls[${i}]`;
    const call = calls[i];
    if (!isObject(call)) throw integrityError(`${where} must be an object`);
    const fn = call.function;
    if (!isObject(fn)) throw integrityError(`${where}.function must be an object`);
    const args = optionalString(fn, 'arguments', `${where}.function`) ?? '';
    events.push({ type: 'block-start', index, block: toolCallBlock(callId(call, where), requiredString(fn, 'name', `${where}.function`), call.extra_content), native });
    if (args !== '') events.push({ type: 'tool-input-delta', index, json: args, native });
    events.push({ type: 'block-stop', index, native });
    index++;
  }
  events.push(
    { type: 'message-delta', stop: withCalls(finishFromWire(choice.finish_reason, 'chat.completion.choices[0]'), calls.length), usage, native },
    { type: 'message-stop', native },
  );
  return events;
}

function withCalls(stop: StopReason | undefined, calls: number): StopReason | null {
  return stop === undefined ? null : stopWithCalls(stop, calls);
}

/** the call's id; one of ours when the upstream sent none (FAILURE-MODES F14) */
function callId(call: JsonObject, where: string): string {
  const id = optionalString(call, 'id', where);
  return id === undefined || id === '' ? `call_${randomUUID().replaceAll('-', '').slice(0, 24)}` : id;
}
