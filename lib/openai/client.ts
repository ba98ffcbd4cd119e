// Client-side pieces both OpenAI encoders (Chat Completions, Responses) write the same way: the
// `gateway` routing object, usage merged across events, and tool-call arguments. Only canonical
// fields are read, so events from any upstream dialect encode the same way.
import type { JsonObject, Usage } from '../chunks.js';
import type { EncoderInput } from '../encoder-input.js';
import { gatewayObject } from '../gateway-info.js';

/**
 * The `gateway` routing object (lib/gateway-info.ts), plus `max_tokens_capped_to` when the ceiling
 * was capped to the served model's maximum (decisions §8).
 */
export function chatGateway(input: Pick<EncoderInput, 'routed'>): JsonObject {
  const out = gatewayObject(input);
  const capped = input.routed?.maxTokensCappedTo ?? null;
  if (capped !== null) out.max_tokens_capped_to = capped;
  return out;
}

/** Canonical usage merged from message-start and message-delta (used when no validated usage came). */
export function mergeUsage(into: Usage, part: Partial<Usage>): void {
  for (const key of Object.keys(part) as (keyof Usage)[]) {
    const value = part[key];
    if (value !== undefined) into[key] = value;
  }
}

/** A tool call's `arguments`: the streamed JSON, or the whole input a block opened with, or `{}`. */
export function toolArguments(streamed: string, input: JsonObject | null): string {
  if (streamed !== '') return streamed;
  return input === null ? '{}' : JSON.stringify(input);
}
