// The Chat and Messages wire readers of a stop reason and of usage (lib/dialects/openai-chat/wire.ts,
// lib/dialects/anthropic/wire.ts) read by a switch and by name (session 15) where they looked the
// value up in a table: compared here with the table readers they replaced, over every known value,
// look-alikes (inherited names, case, padding) and seeded mutations of usage objects: the same
// result, the same keys in the same order, the same error.
import t from 'tap';
import type { JsonObject, JsonValue, StopReason, Usage } from '../../lib/chunks.js';
import { stopFromWire } from '../../lib/dialects/anthropic/wire.js';
import { usageFromWire as anthropicUsage } from '../../lib/dialects/anthropic/wire.js';
import { finishFromWire, usageFromWire as chatUsage } from '../../lib/dialects/openai-chat/wire.js';
import { integrityError, isObject } from '../../lib/json/upstream.js';
import { prng } from '../helpers/replay.js';

// ---- the table readers as they were (session 14) ----
const FINISH: Record<string, StopReason> = {
  stop: { kind: 'end' },
  length: { kind: 'length' },
  tool_calls: { kind: 'tool-calls' },
  function_call: { kind: 'tool-calls' },
  content_filter: { kind: 'content-filter' },
};
function oldFinish(reason: JsonValue | undefined, where: string): StopReason | undefined {
  if (reason === undefined || reason === null) return undefined;
  if (typeof reason !== 'string') throw integrityError(`${where}.finish_reason must be a string or null`);
  return Object.hasOwn(FINISH, reason) ? { ...FINISH[reason]! } : { kind: 'other', value: reason };
}
const STOP_FROM_WIRE: Record<string, StopReason> = {
  end_turn: { kind: 'end' },
  max_tokens: { kind: 'length' },
  tool_use: { kind: 'tool-calls' },
  pause_turn: { kind: 'pause' },
  refusal: { kind: 'content-filter' },
};
function oldStop(reason: JsonValue | undefined, sequence: JsonValue | undefined, where: string): StopReason | null {
  if (reason === null || reason === undefined) return null;
  if (typeof reason !== 'string') throw integrityError(`${where}.stop_reason must be a string or null`);
  if (reason === 'stop_sequence') return { kind: 'stop-sequence', sequence: typeof sequence === 'string' ? sequence : null };
  return Object.hasOwn(STOP_FROM_WIRE, reason) ? { ...STOP_FROM_WIRE[reason]! } : { kind: 'other', value: reason };
}
function oldTokens(obj: JsonObject | undefined, key: string, where: string, required: boolean): number {
  const value = obj?.[key];
  if ((value === undefined || value === null) && !required) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw integrityError(`${where}.${key} must be a non-negative integer`);
  return value;
}
function oldDetails(usage: JsonObject, key: string, where: string): JsonObject | undefined {
  const value = usage[key];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw integrityError(`${where}.${key} must be an object`);
  return value;
}
function oldChatUsage(usage: JsonObject, where: string): Usage {
  const prompt = oldTokens(usage, 'prompt_tokens', where, true);
  const completion = oldTokens(usage, 'completion_tokens', where, true);
  const cached = oldTokens(oldDetails(usage, 'prompt_tokens_details', where), 'cached_tokens', `${where}.prompt_tokens_details`, false);
  const reasoning = oldTokens(oldDetails(usage, 'completion_tokens_details', where), 'reasoning_tokens', `${where}.completion_tokens_details`, false);
  if (cached > prompt) throw integrityError(`${where}: cached_tokens (${cached}) exceed prompt_tokens (${prompt})`);
  if (reasoning > completion) throw integrityError(`${where}: reasoning_tokens (${reasoning}) exceed completion_tokens (${completion})`);
  return { input: prompt - cached, output: completion, cacheRead: cached, cacheWrite: 0, reasoning, webSearches: 0 };
}
const USAGE_KEYS = [
  ['input_tokens', 'input'],
  ['output_tokens', 'output'],
  ['cache_read_input_tokens', 'cacheRead'],
  ['cache_creation_input_tokens', 'cacheWrite'],
] as const;
function oldAnthropicUsage(usage: JsonObject, where: string): Partial<Usage> {
  const out: Partial<Usage> = {};
  for (const [wire, key] of USAGE_KEYS) {
    const value = usage[wire];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number') throw integrityError(`${where}.${wire} must be a number`);
    out[key] = value;
  }
  const server = usage.server_tool_use;
  if (isObject(server)) {
    const searches = server.web_search_requests;
    if (typeof searches === 'number') out.webSearches = searches;
    else if (searches !== undefined && searches !== null) throw integrityError(`${where}.server_tool_use.web_search_requests must be a number`);
  }
  return out;
}

/** what a call gave: its value with its keys in order, or its error's code and message */
function outcome(f: () => unknown): string {
  try {
    const v = f();
    return `ok ${JSON.stringify(v === undefined ? '<undefined>' : v)}`;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return `throw ${String(e.code)} ${String(e.message)}`;
  }
}

/** a string read from a frame, as the decoders get it (not internalized) */
const fromFrame = (s: string): string => (JSON.parse(JSON.stringify({ v: s })) as { v: string }).v;

const REASONS: JsonValue[] = [
  'stop', 'length', 'tool_calls', 'function_call', 'content_filter',
  'end_turn', 'max_tokens', 'tool_use', 'pause_turn', 'refusal', 'stop_sequence',
  'other', '', 'Stop', 'STOP', ' stop', 'stop ', 'toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf',
  'end', 'tool-calls', 'content-filter', null, 1, true, {}, [],
];

t.test('finish_reason and stop_reason: the switch reads as the table did', async (t) => {
  for (const r of REASONS) {
    for (const reason of typeof r === 'string' ? [r, fromFrame(r)] : [r]) {
      t.equal(outcome(() => finishFromWire(reason, 'chunk.choices[]')), outcome(() => oldFinish(reason, 'chunk.choices[]')), `finish ${JSON.stringify(reason)}`);
      for (const seq of [undefined, null, 'END', 3] as const) {
        t.equal(outcome(() => stopFromWire(reason, seq, 'message_delta.delta')), outcome(() => oldStop(reason, seq, 'message_delta.delta')), `stop ${JSON.stringify(reason)} ${String(seq)}`);
      }
    }
  }
  t.equal(outcome(() => finishFromWire(undefined, 'x')), outcome(() => oldFinish(undefined, 'x')));
  t.equal(outcome(() => stopFromWire(undefined, undefined, 'x')), outcome(() => oldStop(undefined, undefined, 'x')));
  // each call a new object (callers may keep or change it)
  t.not(finishFromWire('stop', 'x'), finishFromWire('stop', 'x'));
  t.not(stopFromWire('end_turn', null, 'x'), stopFromWire('end_turn', null, 'x'));
});

const CHAT_USAGE: JsonObject = {
  prompt_tokens: 250, completion_tokens: 50, total_tokens: 300,
  prompt_tokens_details: { cached_tokens: 20, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 10, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};
const ANTHROPIC_USAGE: JsonObject = {
  input_tokens: 250, cache_creation_input_tokens: 5, cache_read_input_tokens: 7, output_tokens: 50,
  server_tool_use: { web_search_requests: 2 },
};
const ODD: JsonValue[] = [null, undefined as unknown as JsonValue, -1, 1.5, 2 ** 60, '3', true, {}, [], 0, 400, NaN, Infinity];

/** a copy of `base` with seeded changes: members removed, set to odd values, nested objects changed */
function mutate(base: JsonObject, rand: () => number): JsonObject {
  const out = JSON.parse(JSON.stringify(base)) as JsonObject;
  const changes = 1 + Math.floor(rand() * 3);
  for (let c = 0; c < changes; c++) {
    const keys = Object.keys(out);
    const key = keys[Math.floor(rand() * keys.length)]!;
    const value = out[key];
    if (isObject(value) && rand() < 0.6) {
      const inner = Object.keys(value);
      const k = inner[Math.floor(rand() * inner.length)]!;
      if (rand() < 0.3) delete value[k];
      else value[k] = ODD[Math.floor(rand() * ODD.length)]!;
    } else if (rand() < 0.3) delete out[key];
    else out[key] = ODD[Math.floor(rand() * ODD.length)]!;
  }
  return out;
}

t.test('usage: read by name as by the table, over seeded mutations', async (t) => {
  const rand = prng(15);
  let differ = 0;
  let refused = 0;
  for (let i = 0; i < 3000; i++) {
    const chat = i === 0 ? CHAT_USAGE : mutate(CHAT_USAGE, rand);
    const a = outcome(() => chatUsage(chat, 'chunk.usage'));
    if (a !== outcome(() => oldChatUsage(chat, 'chunk.usage'))) differ++;
    if (a.startsWith('throw')) refused++;
    const msg = i === 0 ? ANTHROPIC_USAGE : mutate(ANTHROPIC_USAGE, rand);
    const b = outcome(() => anthropicUsage(msg, 'message_delta.usage'));
    if (b !== outcome(() => oldAnthropicUsage(msg, 'message_delta.usage'))) differ++;
    if (b.startsWith('throw')) refused++;
  }
  t.equal(differ, 0, 'the same usage, keys in the same order, or the same error');
  t.ok(refused > 300, `the mutations include refused usage (${refused})`);
});
