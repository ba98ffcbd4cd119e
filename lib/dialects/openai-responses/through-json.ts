// A non-streaming Response from a Responses upstream, written to the Responses client with the
// upstream's text bytes (the native path, as the streamed final frames are: client-encode-through.ts)
// instead of the text serialised again from its canonical events: a message's text, an answer's bulk,
// is not escaped a second time. The Response object itself stays the gateway's (decisions §10: its id,
// timestamps, status, echoed parameters, usage, `gateway` with the cost), written as the streamed
// answer's terminal event writes it; so the JSON answer is the very Response the stream ends with,
// the same value the re-encoder writes, only a message text's escapes may differ. It goes through
// when what the re-encoder wrote says the same thing item for item: each output item is
// - a plain message: `type: "message"`, `role: "assistant"`, `status: "completed"`, only the keys the
//   re-encoder writes, one `output_text` part of non-empty text with no annotations and no logprobs
//   (a refusal, several parts, citations are re-encoded); it is written in the gateway's layout under
//   the gateway's item id (messageItem, as the stream's final frames write it), with the upstream's text bytes;
// - or an item the re-encoder writes as the upstream sent it (the very value: a reasoning item without
//   encrypted_content, a hosted tool call).
// With any other item (a function call, reasoning the client gets back as state), the whole answer
// is re-encoded.
import type { JsonObject, JsonValue, NativeFrame } from '../../chunks.js';
import { valueSpan } from '../../json/member-spans.js';
import { isObject, onlyKeys } from '../../json/values.js';
import { messageItem } from './client-encode-through.js';

const ITEM_KEYS: ReadonlySet<string> = new Set(['id', 'type', 'status', 'content', 'role']);
const PART_KEYS: ReadonlySet<string> = new Set(['type', 'text', 'annotations', 'logprobs']);

const emptyList = (v: JsonValue | undefined): boolean => v === undefined || (Array.isArray(v) && v.length === 0);

/** A message item the re-encoder writes with the same text in the same shape. */
function plainMessage(item: JsonValue | undefined): item is JsonObject {
  if (!isObject(item) || !onlyKeys(item, ITEM_KEYS)) return false;
  if (item.type !== 'message' || item.role !== 'assistant' || item.status !== 'completed') return false;
  const content = item.content;
  if (!Array.isArray(content) || content.length !== 1) return false;
  const part = content[0];
  if (!isObject(part) || !onlyKeys(part, PART_KEYS) || part.type !== 'output_text') return false;
  return typeof part.text === 'string' && part.text !== '' && emptyList(part.annotations) && emptyList(part.logprobs);
}

/** The text of the only part of the gateway's message item `item`, if it is one. */
function messageText(item: JsonValue | undefined): string | undefined {
  if (!isObject(item) || item.type !== 'message' || !Array.isArray(item.content)) return undefined;
  const part = item.content[0];
  return isObject(part) && typeof part.text === 'string' ? part.text : undefined;
}

/**
 * The JSON text of each message item of the gateway's `output` (the re-encoder's, built from the
 * upstream's Response `native`) written with the upstream's text bytes, when the answer may go
 * through; null to re-encode.
 */
export function throughItems(native: NativeFrame, output: readonly JsonValue[]): Map<JsonValue, string> | null {
  const upstream = native.parsed;
  const items = upstream.output;
  if (upstream.object !== 'response' || !Array.isArray(items) || items.length !== output.length) return null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (output[i] === item) continue; // written as the upstream sent it
    if (!plainMessage(item) || messageText(output[i]) !== (item.content as JsonObject[])[0]!.text) return null;
  }
  const text = native.data;
  const through = new Map<JsonValue, string>();
  for (let i = 0; i < items.length; i++) {
    const ours = output[i] as JsonObject;
    if (ours === items[i]) continue;
    // one walk over the Response's text up to this message's text
    const span = valueSpan(text, 0, ['output', i, 'content', 0, 'text']);
    if (span === null) return null;
    through.set(ours, messageItem(JSON.stringify(ours.id), text.slice(span[0], span[1])));
  }
  return through;
}
