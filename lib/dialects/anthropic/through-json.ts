// A non-streaming Message from an Anthropic upstream, written to the Messages client as the upstream's
// text (the native path, as a stream's frames are: encode-sse.ts) instead of being serialised again
// from its canonical events by encode-json.ts: the content, an answer's bulk, is not escaped and
// serialised a second time. The re-encoder copies every native block and envelope member as it came,
// so it says the same thing; the path is kept to plain answers all the same (as Chat's and
// Responses'), i.e.
// - `type: "message"`, `role: "assistant"`, no member named `gateway` (the gateway's own) and no
//   private envelope member (`cost`, `cost_details`: re-encoded without them);
// - its content only `text` blocks (`type`, `text`, a null `citations`): tool use, thinking, server
//   tool blocks and citations are re-encoded.
// Then the client gets every member the re-encoder writes, with its value, the changes made in the
// text: `model` becomes the model the client asked for (decisions §2), a `usage` with private members
// (`cost`, `cost_details`) is written without them, a missing `stop_sequence` is added as null, and
// the answer to `diagnostics` (when asked and the upstream gave none) and the `gateway` object (when
// there is one) are added last. The rest is the upstream's, byte for byte.
import type { JsonObject, JsonValue, NativeFrame } from '../../chunks.js';
import { MemberEdits } from '../../json/member-edits.js';
import { memberSpans } from '../../json/member-spans.js';
import { isObject, onlyKeys } from '../../json/values.js';
import { PRIVATE_ENVELOPE_KEYS, PRIVATE_USAGE_KEYS, hasPrivateKeys, withoutKeys } from './wire.js';

const TEXT_KEYS: ReadonlySet<string> = new Set(['type', 'text', 'citations']);

/** What the gateway writes in place of the upstream's (undefined: nothing). */
export interface MessageChanges {
  model: string | undefined;
  diagnostics: JsonValue | undefined;
  gateway: JsonObject | undefined;
}

function textBlock(block: JsonValue): boolean {
  return isObject(block) && block.type === 'text' && onlyKeys(block, TEXT_KEYS) && typeof block.text === 'string' && (block.citations ?? null) === null;
}

/** A Message of text blocks only, which the re-encoder writes with the same members. */
function plainMessage(message: JsonObject): boolean {
  if (message.type !== 'message' || message.role !== 'assistant') return false;
  if (Object.hasOwn(message, 'gateway') || hasPrivateKeys(message, PRIVATE_ENVELOPE_KEYS)) return false;
  const content = message.content;
  return Array.isArray(content) && content.every(textBlock) && isObject(message.usage);
}

/** The upstream's Message `answer` with the gateway's changes, when it may go through; null to re-encode. */
export function throughMessage(answer: NativeFrame, changes: MessageChanges): string | null {
  const message = answer.parsed;
  if (!plainMessage(message)) return null;
  const text = answer.data;
  const top = memberSpans(text);
  if (top === null) return null;
  const edits = new MemberEdits();
  if (changes.model !== undefined && message.model !== changes.model) edits.set(top, 'model', JSON.stringify(changes.model));
  const usage = message.usage as JsonObject;
  if (hasPrivateKeys(usage, PRIVATE_USAGE_KEYS)) edits.set(top, 'usage', JSON.stringify(withoutKeys(usage, PRIVATE_USAGE_KEYS)));
  if (!top.has('stop_sequence')) edits.add(top, 'stop_sequence', 'null');
  if (changes.diagnostics !== undefined && !Object.hasOwn(message, 'diagnostics')) edits.add(top, 'diagnostics', JSON.stringify(changes.diagnostics));
  if (changes.gateway !== undefined) edits.add(top, 'gateway', JSON.stringify(changes.gateway));
  return edits.apply(text, top);
}
