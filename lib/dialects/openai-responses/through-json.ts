// A non-streaming Response from a Responses upstream, written to the Responses client as the
// upstream's text (the native path, as the streamed final frames are: client-encode-through.ts)
// instead of being serialised again from its canonical events: the message text, an answer's bulk, is
// not escaped and serialised a second time. It goes through when what the re-encoder wrote says the
// same thing item for item: each output item is
// - a plain message: `type: "message"`, `role: "assistant"`, `status: "completed"`, only the keys the
//   re-encoder writes, one `output_text` part of non-empty text with no annotations and no logprobs
//   (a refusal, several parts, citations are re-encoded); its `id` becomes the gateway's item id, the
//   one the re-encoder (and the streamed answer) gives it;
// - or an item the re-encoder writes as the upstream sent it (the very value: a reasoning item without
//   encrypted_content, a hosted tool call), left as it is.
// Any other item (function calls, reasoning the client gets back as state) is re-encoded, whole answer.
// The Response object's own members are the gateway's (decisions §10: its id, timestamps, status,
// echoed parameters, usage; `gateway` with the cost, added last): every member the re-encoder writes
// is written in whole in place of the upstream's, or added. The rest is the upstream's: its member
// order and spacing, and the members the re-encoder never wrote (`billing`, `moderation`,
// `prompt_cache_retention`, `tool_usage`).
import type { JsonObject, JsonValue, NativeFrame } from '../../chunks.js';
import { MemberEdits } from '../../json/member-edits.js';
import { elementStarts, memberSpans } from '../../json/member-spans.js';
import { isObject, onlyKeys } from '../../json/values.js';

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
 * The upstream's Response `native` with the gateway's Response `response` (the re-encoder's, whose
 * `output` was built from `native`) written in, when it may go through; null to re-encode.
 */
export function throughResponse(native: NativeFrame, response: JsonObject): string | null {
  const upstream = native.parsed;
  const items = upstream.output;
  const ours = response.output;
  if (upstream.object !== 'response' || Object.hasOwn(upstream, 'gateway')) return null;
  if (!Array.isArray(items) || !Array.isArray(ours) || items.length !== ours.length) return null;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (ours[i] === item) continue; // written as the upstream sent it
    if (!plainMessage(item) || messageText(ours[i]) !== (item.content as JsonObject[])[0]!.text) return null;
  }
  const text = native.data;
  const top = memberSpans(text);
  const output = top?.members.get('output');
  const starts = output === undefined ? null : elementStarts(text, output[1]);
  if (top == null || starts === null || starts.length !== items.length) return null;
  const edits = new MemberEdits();
  for (const key in response) if (key !== 'output' && key !== 'gateway') edits.set(top, key, JSON.stringify(response[key]));
  for (let i = 0; i < items.length; i++) {
    if (ours[i] === items[i]) continue;
    const item = memberSpans(text, starts[i], ['content']);
    const part = item?.inner;
    if (item == null || part === undefined) return null;
    edits.set(item, 'id', JSON.stringify((ours[i] as JsonObject).id));
    if (!part.members.has('annotations')) edits.add(part, 'annotations', '[]');
    if (!part.members.has('logprobs')) edits.add(part, 'logprobs', '[]');
  }
  if (response.gateway !== undefined) edits.add(top, 'gateway', JSON.stringify(response.gateway));
  return edits.apply(text, top);
}
