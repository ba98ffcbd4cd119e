// How a Responses `reasoning` item crosses dialects. The upstream decoder turns a reasoning item
// that carries `encrypted_content` into a canonical thinking block: its text is the summary (parts
// joined by "\n\n"), its signature everything else the next turn needs to send the SAME item back:
//
//   signature = "oai-rs:" + encodeURIComponent(item id) + ":" + <summary part lengths> + ":" + <encrypted_content>
//
// - <summary part lengths>: the length (UTF-16 code units, as JS counts) of each `summary[i].text`,
//   comma-separated; empty for `summary: []`. They let the thinking text be cut back into the exact
//   parts ("\n\n" may also occur inside a part, so splitting on it would not be exact).
// - <encrypted_content>: verbatim, to the end of the string (it may contain any character).
// - The item id is percent-encoded, so it never contains the ":" that ends it.
// - A reasoning item whose thinking block was already streamed but that ended without
//   `encrypted_content` gets an empty encrypted part: the block stays signed (the integrity rule),
//   and the next turn does not send the item (`reasoningInputItem` → null).
//
// Example: `oai-rs:rs_68c3:41,18:gAAAAABow1Cb52ic…`. A Messages client sees this as an ordinary
// thinking signature, a Chat client inside `reasoning_details` (lib/translate/reasoning-details.ts);
// both send it back unmodified, and the request encoders rebuild the input item
// `{id, type: "reasoning", encrypted_content, summary}` (the provider's own key order) from it.
// Anthropic cannot verify these signatures: `isResponsesSignature` lets other paths drop them.
import type { JsonObject, JsonValue } from '../chunks.js';

export const REASONING_SIGNATURE_PREFIX = 'oai-rs:';
/** joins the summary parts of one reasoning item into the thinking text */
export const SUMMARY_SEPARATOR = '\n\n';

export interface ReasoningState {
  id: string;
  encryptedContent: string;
  /** lengths of the summary parts, in order; empty for no summary */
  summaryLengths: number[];
}

/**
 * The signature of a thinking block made from a Chat upstream's `reasoning_content` (DeepSeek,
 * Kimi, vLLM reasoning parsers): nothing signed it, and nothing but the Chat model that wrote it
 * needs it back: translated to a Chat deployment it travels as `reasoning_content` on the assistant
 * message (those upstreams refuse a tool-call turn without it, FAILURE-MODES F23); Claude never gets
 * it (F21). A Messages client keeps it as an ordinary thinking block (F27).
 */
export const CHAT_REASONING_SIGNATURE = 'oai-reasoning-content';

export function isChatReasoningSignature(signature: JsonValue | undefined): boolean {
  return signature === CHAT_REASONING_SIGNATURE;
}

export function isResponsesSignature(signature: JsonValue | undefined): boolean {
  return typeof signature === 'string' && signature.startsWith(REASONING_SIGNATURE_PREFIX);
}

export function encodeReasoningSignature(id: string, encrypted: string, summaryLengths: readonly number[] = []): string {
  return `${REASONING_SIGNATURE_PREFIX}${encodeURIComponent(id)}:${summaryLengths.join(',')}:${encrypted}`;
}

const LENGTHS = /^(?:\d{1,9}(?:,\d{1,9})*)?$/;

/** The state inside a signature written by `encodeReasoningSignature`; null for any other signature. */
export function decodeReasoningSignature(signature: string): ReasoningState | null {
  if (!signature.startsWith(REASONING_SIGNATURE_PREFIX)) return null;
  const idEnd = signature.indexOf(':', REASONING_SIGNATURE_PREFIX.length);
  if (idEnd === -1) return null;
  const lengthsEnd = signature.indexOf(':', idEnd + 1);
  if (lengthsEnd === -1) return null;
  const lengths = signature.slice(idEnd + 1, lengthsEnd);
  if (!LENGTHS.test(lengths)) return null;
  let id: string;
  try {
    id = decodeURIComponent(signature.slice(REASONING_SIGNATURE_PREFIX.length, idEnd));
  } catch {
    return null;
  }
  if (id === '') return null;
  return { id, encryptedContent: signature.slice(lengthsEnd + 1), summaryLengths: lengths === '' ? [] : lengths.split(',').map(Number) };
}

/** The texts of a reasoning item's `summary` parts (non-text parts count as empty). */
export function summaryTexts(summary: JsonValue | undefined): string[] {
  if (!Array.isArray(summary)) return [];
  return summary.map((part) => (typeof part === 'object' && part !== null && !Array.isArray(part) && typeof part.text === 'string' ? part.text : ''));
}

/** The thinking block of a complete reasoning item: its text and its signature. */
export function thinkingFromItem(id: string, encrypted: string, summary: JsonValue | undefined): { thinking: string; signature: string } {
  const texts = summaryTexts(summary);
  return { thinking: texts.join(SUMMARY_SEPARATOR), signature: encodeReasoningSignature(id, encrypted, texts.map((s) => s.length)) };
}

/**
 * The summary parts of `thinking`, cut by the recorded lengths. When the text does not fit them
 * (the client changed it), the whole text becomes one part (none when it is empty).
 */
function splitSummary(thinking: string, lengths: readonly number[]): string[] {
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    if (i > 0) {
      if (!thinking.startsWith(SUMMARY_SEPARATOR, at)) return fallback(thinking);
      at += SUMMARY_SEPARATOR.length;
    }
    const end = at + lengths[i]!;
    if (end > thinking.length) return fallback(thinking);
    parts.push(thinking.slice(at, end));
    at = end;
  }
  return at === thinking.length ? parts : fallback(thinking);
}

function fallback(thinking: string): string[] {
  return thinking === '' ? [] : [thinking];
}

/**
 * The Responses input item for a thinking block with an `oai-rs:` signature, byte-identical to
 * the reasoning item the model produced (id, encrypted_content, summary texts); null when the
 * signature is not one of ours (Anthropic thinking: another vendor cannot verify it) or carries no
 * encrypted content (a reasoning item that had none: with `store: false` the provider could not
 * resolve it by id, so it is not sent).
 */
export function reasoningInputItem(thinking: string, signature: string): JsonObject | null {
  const state = decodeReasoningSignature(signature);
  if (state === null || state.encryptedContent === '') return null;
  const summary = splitSummary(thinking, state.summaryLengths).map((text): JsonObject => ({ type: 'summary_text', text }));
  return { id: state.id, type: 'reasoning', encrypted_content: state.encryptedContent, summary };
}

/**
 * Messages `messages` without the thinking blocks the gateway made for other models (Responses
 * state, a Chat upstream's reasoning_content) — for paths that send the conversation to Anthropic,
 * which would refuse their signatures on every later turn of a session that switched models
 * (FAILURE-MODES F21); a turn left empty is dropped. The same array is returned when
 * there is nothing to drop.
 */
export function withoutResponsesThinking(messages: JsonValue): JsonValue {
  if (!Array.isArray(messages)) return messages;
  const foreign = (b: JsonValue): boolean =>
    typeof b === 'object' && b !== null && !Array.isArray(b) && b.type === 'thinking' && (isResponsesSignature(b.signature) || isChatReasoningSignature(b.signature));
  let changed = false;
  const out: JsonValue[] = [];
  for (const m of messages) {
    if (typeof m !== 'object' || m === null || Array.isArray(m) || !Array.isArray(m.content) || !m.content.some(foreign)) {
      out.push(m);
      continue;
    }
    changed = true;
    const content = m.content.filter((b) => !foreign(b));
    if (content.length > 0) out.push({ ...m, content }); // a turn left empty is dropped
  }
  return changed ? out : messages;
}
