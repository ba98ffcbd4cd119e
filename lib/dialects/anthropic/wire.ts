// Shared pieces of the Anthropic Messages wire format: strict parsing into objects, field checks,
// usage and stop-reason tables in both directions, canonical block ⇄ wire block, and the
// provider-private envelope keys that never reach a client. Used by the decoders and both encoders.
import type { CanonicalBlock, JsonObject, JsonValue, NativeFrame, StopReason, Usage } from '../../chunks.js';
import { integrityError, isObject } from '../../json/upstream.js';

export { integrityError, isObject, parseObject } from '../../json/upstream.js';

export function objectField(obj: JsonObject, key: string, where: string): JsonObject {
  const value = obj[key];
  if (!isObject(value)) throw integrityError(`${where}.${key} must be an object`);
  return value;
}

export function stringField(obj: JsonObject, key: string, where: string): string {
  const value = obj[key];
  if (typeof value !== 'string') throw integrityError(`${where}.${key} must be a string`);
  return value;
}

export function indexField(obj: JsonObject, where: string): number {
  const value = obj.index;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw integrityError(`${where}.index must be a non-negative integer`);
  }
  return value;
}

/** a wire count: null or absent → undefined; a present non-number is an integrity error */
function count(value: JsonValue | undefined, wire: string, where: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number') throw integrityError(`${where}.${wire} must be a number`);
  return value;
}

/**
 * The usage fields present in a wire usage object (`input_tokens` excludes cache, as canonical
 * `input` does). Null or absent fields are left out; a present non-number is an integrity error.
 * Range checks (non-negative integers) belong to the integrity stage. The members are read by name
 * and the fields set in this order (input, output, cacheRead, cacheWrite), not through a table of
 * keys: one load each instead of a keyed load and store by a key from the table.
 */
export function usageFromWire(usage: JsonObject, where: string): Partial<Usage> {
  const out: Partial<Usage> = {};
  const input = count(usage.input_tokens, 'input_tokens', where);
  if (input !== undefined) out.input = input;
  const output = count(usage.output_tokens, 'output_tokens', where);
  if (output !== undefined) out.output = output;
  const cacheRead = count(usage.cache_read_input_tokens, 'cache_read_input_tokens', where);
  if (cacheRead !== undefined) out.cacheRead = cacheRead;
  const cacheWrite = count(usage.cache_creation_input_tokens, 'cache_creation_input_tokens', where);
  if (cacheWrite !== undefined) out.cacheWrite = cacheWrite;
  const server = usage.server_tool_use;
  if (isObject(server)) {
    const searches = server.web_search_requests;
    if (typeof searches === 'number') out.webSearches = searches;
    else if (searches !== undefined && searches !== null) throw integrityError(`${where}.server_tool_use.web_search_requests must be a number`);
  }
  return out;
}

/** A complete usage (message start): input and output tokens are required. */
export function fullUsageFromWire(usage: JsonObject, where: string): Usage {
  const part = usageFromWire(usage, where);
  if (part.input === undefined) throw integrityError(`${where}.input_tokens is required`);
  if (part.output === undefined) throw integrityError(`${where}.output_tokens is required`);
  return {
    input: part.input,
    output: part.output,
    cacheRead: part.cacheRead ?? 0,
    cacheWrite: part.cacheWrite ?? 0,
    reasoning: 0,
    webSearches: part.webSearches ?? 0,
  };
}

export function usageToWire(usage: Partial<Usage>): JsonObject {
  const out: JsonObject = {};
  if (usage.input !== undefined) out.input_tokens = usage.input;
  if (usage.cacheWrite !== undefined) out.cache_creation_input_tokens = usage.cacheWrite;
  if (usage.cacheRead !== undefined) out.cache_read_input_tokens = usage.cacheRead;
  if (usage.output !== undefined) out.output_tokens = usage.output;
  if (usage.webSearches) out.server_tool_use = { web_search_requests: usage.webSearches };
  return out;
}

/**
 * `stop_reason` → StopReason (a new object each call); unknown reasons are kept as `other`. A switch,
 * not a lookup in a table: the reason is a string read from the frame (not internalized), which a
 * keyed lookup must first find in the string table.
 */
export function stopFromWire(reason: JsonValue | undefined, sequence: JsonValue | undefined, where: string): StopReason | null {
  if (reason === null || reason === undefined) return null;
  if (typeof reason !== 'string') throw integrityError(`${where}.stop_reason must be a string or null`);
  switch (reason) {
    case 'stop_sequence':
      return { kind: 'stop-sequence', sequence: typeof sequence === 'string' ? sequence : null };
    case 'end_turn':
      return { kind: 'end' };
    case 'max_tokens':
      return { kind: 'length' };
    case 'tool_use':
      return { kind: 'tool-calls' };
    case 'pause_turn':
      return { kind: 'pause' };
    case 'refusal':
      return { kind: 'content-filter' };
    default:
      return { kind: 'other', value: reason };
  }
}

const STOP_TO_WIRE: Record<Exclude<StopReason['kind'], 'other'>, string> = {
  end: 'end_turn',
  length: 'max_tokens',
  'stop-sequence': 'stop_sequence',
  'tool-calls': 'tool_use',
  pause: 'pause_turn',
  'content-filter': 'refusal',
};

export function stopToWire(stop: StopReason | null): { stop_reason: string | null; stop_sequence: string | null } {
  if (stop === null) return { stop_reason: null, stop_sequence: null };
  if (stop.kind === 'other') return { stop_reason: stop.value, stop_sequence: null };
  return { stop_reason: STOP_TO_WIRE[stop.kind], stop_sequence: stop.kind === 'stop-sequence' ? stop.sequence : null };
}

/** A wire content block (as opened in a stream, or complete in a Message) → CanonicalBlock. */
export function blockFromWire(block: JsonObject, where: string): CanonicalBlock {
  switch (block.type) {
    case 'text': {
      const text = stringField(block, 'text', where);
      const citations = block.citations;
      if (Array.isArray(citations)) return { kind: 'text', text, citations };
      return { kind: 'text', text };
    }
    case 'thinking':
      return { kind: 'thinking', thinking: stringField(block, 'thinking', where), signature: typeof block.signature === 'string' ? block.signature : '' };
    case 'redacted_thinking':
      return { kind: 'redacted-thinking', data: stringField(block, 'data', where) };
    case 'tool_use': {
      // id and name are checked (present, unique) by the integrity stage
      const input = block.input;
      if (input !== undefined && input !== null && !isObject(input)) throw integrityError(`${where}.input must be an object`);
      return { kind: 'tool-call', id: typeof block.id === 'string' ? block.id : '', name: typeof block.name === 'string' ? block.name : '', input: input ?? null };
    }
    default:
      if (typeof block.type !== 'string') throw integrityError(`${where}.type must be a string`);
      return { kind: 'opaque', value: block };
  }
}

/** CanonicalBlock → wire block for a client of this dialect; undefined for opaque blocks of other dialects. */
export function blockToWire(block: CanonicalBlock): JsonObject | undefined {
  switch (block.kind) {
    case 'text':
      return block.citations ? { type: 'text', text: block.text, citations: block.citations } : { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted-thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool-call':
      // another upstream's id (Kimi's `functions.Bash:0`) would fail every later turn once replayed to
      // Claude (FAILURE-MODES F39): mapped as lib/translate/tables.ts anthropicToolId maps history ids
      return { type: 'tool_use', id: block.id.replace(/[^a-zA-Z0-9_-]/g, '_'), name: block.name, input: block.input ?? {} };
    case 'opaque':
    case 'web-search':
      return undefined;
  }
}

/** Provider-private keys removed from the envelope (message object and its usage) only, never from content. */
export const PRIVATE_ENVELOPE_KEYS: readonly string[] = ['cost', 'cost_details'];
export const PRIVATE_USAGE_KEYS: readonly string[] = ['cost', 'cost_details'];

export function hasPrivateKeys(obj: JsonObject, keys: readonly string[]): boolean {
  for (const key of keys) if (Object.hasOwn(obj, key)) return true;
  return false;
}

/** A copy of `obj` (key order kept) without `keys`. */
export function withoutKeys(obj: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(obj)) if (!keys.includes(key)) out[key] = obj[key]!;
  return out;
}

/**
 * The message envelope a client sees: `model` replaced by the requested value (when given), private
 * envelope keys and private usage keys removed. Key order is kept; `content` is left as it is.
 */
export function clientEnvelope(message: JsonObject, clientModel: string | undefined): JsonObject {
  const out = withoutKeys(message, PRIVATE_ENVELOPE_KEYS);
  if (clientModel !== undefined) out.model = clientModel;
  if (isObject(out.usage)) out.usage = withoutKeys(out.usage, PRIVATE_USAGE_KEYS);
  return out;
}

/** True when `clientEnvelope` would change nothing (the frame can then be written byte for byte). */
export function envelopeUnchanged(message: JsonObject, clientModel: string | undefined): boolean {
  if (clientModel !== undefined && message.model !== clientModel) return false;
  if (hasPrivateKeys(message, PRIVATE_ENVELOPE_KEYS)) return false;
  return !isObject(message.usage) || !hasPrivateKeys(message.usage, PRIVATE_USAGE_KEYS);
}

/**
 * A native frame built from an object (non-streaming input): `data` is serialised only if read.
 * `answer`: the whole body it was cut from (NativeFrame.answer).
 */
export function syntheticFrame(event: string, parsed: JsonObject, answer?: NativeFrame): NativeFrame {
  let data: string | undefined;
  const frame: NativeFrame = {
    dialect: 'anthropic',
    event,
    parsed,
    get data(): string {
      data ??= JSON.stringify(parsed);
      return data;
    },
  };
  if (answer !== undefined) frame.answer = answer;
  return frame;
}

/** Message ids are `msg_…`; an id translated from another dialect (`chatcmpl-…`, `resp_…`) gets the prefix. */
export function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id}`;
}
