// A Messages request to an Anthropic deployment is forwarded natively: the validated body as the
// client sent it, with only the model name, a capped max_tokens and a reconciled thinking budget
// replaced. Betas are forwarded in order. An empty assistant turn before the last message (an
// answer without content blocks, sent back as history) is dropped: Anthropic refuses it there.
import type { Deployment, JsonObject, JsonValue, RoutedRequest } from '../../chunks.js';
import type { EncodedCall } from '../dialect.js';
import { withoutResponsesThinking } from '../../translate/reasoning-state.js';
import { spliceTopLevel, type RawJson } from '../../json/splice.js';
import { copyWith } from '../../json/copy-with.js';

export function anthropicNative(routed: RoutedRequest, deployment: Deployment): EncodedCall {
  const req = routed.request;
  const body: JsonObject = copyWith(req.body, 'model', deployment.upstreamModel);
  /** top-level members whose value differs from what the client wrote (often none: a catalog id is its deployment's name) */
  const changed: string[] = req.body.model === deployment.upstreamModel ? [] : ['model'];
  // reasoning state of an OpenAI Responses model (carried as a thinking block) means nothing to Claude
  if (req.needs.signedThinking) body.messages = withoutResponsesThinking(body.messages);
  if (Array.isArray(body.messages)) body.messages = withoutEmptyTurns(body.messages);
  if (routed.maxTokensCappedTo !== null) {
    body.max_tokens = routed.maxTokensCappedTo;
    changed.push('max_tokens');
  }
  const thinking = req.body.thinking;
  if (routed.thinkingBudget !== null && thinking && typeof thinking === 'object' && !Array.isArray(thinking) && thinking.budget_tokens !== routed.thinkingBudget) {
    body.thinking = { ...thinking, budget_tokens: routed.thinkingBudget };
    changed.push('thinking');
  }
  const headers: Record<string, string> = Object.assign({}, req.forward.headers);
  if (req.forward.betas.length > 0) headers['anthropic-beta'] = req.forward.betas.join(',');
  const spliced = req.raw !== undefined && body.messages === req.body.messages ? splicedBody(req.raw, body, changed) : null;
  return { body: spliced ?? JSON.stringify(body), headers, stream: req.stream };
}

function isEmptyTurn(m: JsonValue, i: number, last: number): boolean {
  return i < last && typeof m === 'object' && m !== null && !Array.isArray(m) && m.role === 'assistant' && Array.isArray(m.content) && m.content.length === 0;
}

/** The messages without empty assistant turns before the last; the same array when there are none. */
function withoutEmptyTurns(messages: JsonValue[]): JsonValue[] {
  const last = messages.length - 1;
  if (!messages.some((m, i) => isEmptyTurn(m, i, last))) return messages;
  return messages.filter((m, i) => !isEmptyTurn(m, i, last));
}

/**
 * The client's bytes with only the changed top-level values replaced: the same JSON value as
 * `body`, without re-serialising (and re-encoding) a request that may be hundreds of KB. Null when
 * a changed member is not in the bytes (the caller serialises instead).
 */
function splicedBody(raw: RawJson, body: JsonObject, changed: readonly string[]): Buffer | null {
  if (changed.length === 0) return raw.bytes;
  const replace: Record<string, string> = {};
  for (const key of changed) replace[key] = JSON.stringify(body[key]);
  return spliceTopLevel(raw, replace);
}
