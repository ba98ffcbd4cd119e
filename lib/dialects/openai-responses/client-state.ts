// How a Responses CLIENT carries reasoning state it cannot read: the `encrypted_content` of the
// `reasoning` output items the gateway writes, and how they come back on the next turn.
//
// - A thinking block whose signature is the Responses state (`oai-rs:`, reasoning-state.ts) was a
//   reasoning item of an OpenAI Responses deployment: the item goes back to the client as it was
//   (its id, its original `encrypted_content`, its summary parts), byte-identical.
// - A thinking block signed by Anthropic, or a redacted_thinking block, becomes a reasoning item
//   whose `encrypted_content` is
//
//     "anthropic-thinking:" + base64url(JSON of the Anthropic block)
//
//   i.e. `{"type":"thinking","thinking":…,"signature":…}` or `{"type":"redacted_thinking","data":…}`,
//   and whose summary is the thinking text (none for redacted thinking). The next turn decodes it
//   back to the exact block, so the signature still verifies at the model that produced it.
//   Such an item is never sent to an OpenAI deployment (OpenAI could not verify it).
import type { JsonObject, JsonValue } from '../../chunks.js';

export const ANTHROPIC_THINKING_PREFIX = 'anthropic-thinking:';

export type AnthropicThinkingBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

export function isAnthropicEncrypted(v: JsonValue | undefined): v is string {
  return typeof v === 'string' && v.startsWith(ANTHROPIC_THINKING_PREFIX);
}

export function encodeAnthropicThinking(block: AnthropicThinkingBlock): string {
  return ANTHROPIC_THINKING_PREFIX + Buffer.from(JSON.stringify(block), 'utf8').toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The Anthropic block inside an `anthropic-thinking:` value; null when it is not one this gateway wrote. */
export function decodeAnthropicThinking(encrypted: string): AnthropicThinkingBlock | null {
  if (!encrypted.startsWith(ANTHROPIC_THINKING_PREFIX)) return null;
  const payload = encrypted.slice(ANTHROPIC_THINKING_PREFIX.length);
  if (payload === '' || !BASE64URL.test(payload)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  if (o.type === 'thinking' && typeof o.thinking === 'string' && typeof o.signature === 'string' && o.signature !== '') {
    return { type: 'thinking', thinking: o.thinking, signature: o.signature };
  }
  if (o.type === 'redacted_thinking' && typeof o.data === 'string' && o.data !== '') return { type: 'redacted_thinking', data: o.data };
  return null;
}

/** A summary array of one `summary_text` part per text (none for ''). */
export function summaryOf(texts: readonly string[]): JsonObject[] {
  return texts.filter((t) => t !== '').map((text) => ({ type: 'summary_text', text }));
}
