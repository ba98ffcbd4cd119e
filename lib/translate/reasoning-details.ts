// How model-bound reasoning state crosses dialects. A Chat Completions client receives Anthropic
// thinking as `reasoning_details` entries and sends them back unmodified on the next turn; the
// translator turns them back into the same thinking / redacted_thinking blocks, byte-identical, so
// the signature still verifies at the model that produced it. (The entry shape follows the
// `reasoning_details` convention OpenRouter uses, so existing chat clients already pass it through.)
import type { JsonObject } from '../chunks.js';
import { isChatReasoningSignature, isResponsesSignature } from './reasoning-state.js';

/** the `format` tag of entries that carry Anthropic thinking */
export const ANTHROPIC_REASONING_FORMAT = 'anthropic-claude-v1';

export interface ReasoningTextDetail {
  type: 'reasoning.text';
  text: string;
  signature: string | null;
  format: string;
  index: number;
}

export interface ReasoningEncryptedDetail {
  type: 'reasoning.encrypted';
  data: string;
  format: string;
  index: number;
}

export type ReasoningDetail = ReasoningTextDetail | ReasoningEncryptedDetail;

/** thinking block → detail */
export function thinkingDetail(text: string, signature: string, index: number): ReasoningTextDetail {
  return { type: 'reasoning.text', text, signature, format: ANTHROPIC_REASONING_FORMAT, index };
}

/** redacted_thinking block → detail */
export function redactedDetail(data: string, index: number): ReasoningEncryptedDetail {
  return { type: 'reasoning.encrypted', data, format: ANTHROPIC_REASONING_FORMAT, index };
}

/**
 * Details sent back by a client → Anthropic assistant blocks (thinking / redacted_thinking), in
 * order. Entries of another format (another vendor's reasoning) are not Anthropic's to verify and
 * are skipped. Returns null for an entry that is malformed (the caller reports its path).
 */
export function detailToAnthropicBlock(detail: JsonObject): JsonObject | null | 'skip' {
  if (detail.format !== ANTHROPIC_REASONING_FORMAT) return 'skip';
  if (isResponsesSignature(detail.signature) || isChatReasoningSignature(detail.signature)) return 'skip';
  if (detail.type === 'reasoning.text' && typeof detail.text === 'string' && typeof detail.signature === 'string') {
    return { type: 'thinking', thinking: detail.text, signature: detail.signature };
  }
  if (detail.type === 'reasoning.encrypted' && typeof detail.data === 'string') {
    return { type: 'redacted_thinking', data: detail.data };
  }
  return null;
}
