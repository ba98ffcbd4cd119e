// The answer to Messages `diagnostics` (beta `cache-diagnosis-2026-04-07`, decisions §10): a first
// turn (`previous_message_id: null`) has nothing to compare, so `diagnostics: null`; for a prior id
// the gateway cannot say why the prompt cache missed (it keeps no prompts), so the reason is
// `unavailable`. A Messages upstream that answered the field itself keeps its own answer.
import type { JsonValue } from '../../chunks.js';
import type { EncoderInput } from '../../encoder-input.js';
import { isObject } from './wire.js';

/** What the Messages encoders read of the request's body (the Dialect's `answerMembers`). */
export const MESSAGES_ANSWER_MEMBERS: readonly string[] = ['diagnostics'];

/** The `diagnostics` member of the Message, or undefined when the request did not ask for it. */
export function messagesDiagnostics(input: Pick<EncoderInput, 'routed'>): JsonValue | undefined {
  const asked = input.routed?.request.body.diagnostics;
  if (!isObject(asked)) return undefined;
  return asked.previous_message_id === null ? null : { cache_miss_reason: { type: 'unavailable' } };
}
