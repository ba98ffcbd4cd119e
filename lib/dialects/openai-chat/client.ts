// Shared pieces of the client side of the Chat Completions wire format (both encoders): the served
// model, finish_reason and usage with the billed cost (the pieces Responses shares are in lib/openai).
// Only canonical fields are read, so events from any upstream dialect encode the same way.
import type { JsonObject, StopReason, Usage } from '../../chunks.js';
import type { EncoderInput } from '../../encoder-input.js';
import { unitsToUsd } from '../../pricing.js';
import { chatReasoning } from './validate.js';

// shared with the Responses encoder (lib/openai/client.ts), re-exported for this dialect's files
export { chatGateway, mergeUsage, toolArguments } from '../../openai/client.js';

/** The `model` a chat client sees: the catalog id of the model that served (decisions §2). */
export function servedModel(input: EncoderInput, upstreamModel: string): string {
  return input.routed?.modelId ?? upstreamModel;
}

/** What the Chat encoders read of the request's body (the Dialect's `answerMembers`): `excludeReasoning`'s. */
export const CHAT_ANSWER_MEMBERS: readonly string[] = ['reasoning', 'reasoning_effort'];

/** The caller asked for reasoning to be used but not returned (`reasoning.exclude`). */
export function excludeReasoning(input: EncoderInput): boolean {
  const req = input.routed?.request;
  return req !== undefined && req.source === 'openai-chat' && chatReasoning(req).exclude;
}

export function finishReason(stop: StopReason | null): string {
  if (stop === null) return 'stop';
  switch (stop.kind) {
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    default:
      return 'stop'; // end, stop-sequence, pause, other
  }
}

/**
 * The chat `usage` object: `prompt_tokens` counts every input token (cached and written too),
 * `completion_tokens` includes reasoning; `cost` is what settle charges, in USD. Validated usage
 * (`usage`, from the integrity stage's notes) wins over the usage seen in the events.
 */
export function chatUsage(input: EncoderInput, seen: Usage): JsonObject {
  const u = input.usage ?? seen;
  const prompt = u.input + u.cacheRead + u.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
    cost: unitsToUsd(input.cost()),
  };
}
