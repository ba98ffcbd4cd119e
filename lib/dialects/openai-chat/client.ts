// Shared pieces of the client side of the Chat Completions wire format (both encoders): the
// `gateway` routing object, finish_reason, usage with the billed cost, and tool-call arguments.
// Only canonical fields are read, so events from any upstream dialect encode the same way.
import type { JsonObject, StopReason, Usage } from '../../chunks.js';
import type { RequestContext } from '../../context.js';
import { gatewayObject } from '../../gateway-info.js';
import { unitsToUsd } from '../../pricing.js';
import { costOfUsage } from '../../../stages/settle.js';
import { chatReasoning } from './validate.js';

/**
 * The `gateway` routing object (lib/gateway-info.ts), plus `max_tokens_capped_to` when the ceiling
 * was capped to the served model's maximum (decisions §8).
 */
export function chatGateway(ctx: RequestContext): JsonObject {
  const out = gatewayObject(ctx);
  const capped = ctx.routed?.maxTokensCappedTo ?? null;
  if (capped !== null) out.max_tokens_capped_to = capped;
  return out;
}

/** The `model` a chat client sees: the catalog id of the model that served (decisions §2). */
export function servedModel(ctx: RequestContext, upstreamModel: string): string {
  return ctx.routed?.modelId ?? upstreamModel;
}

/** The caller asked for reasoning to be used but not returned (`reasoning.exclude`). */
export function excludeReasoning(ctx: RequestContext): boolean {
  const req = ctx.routed?.request;
  return req !== undefined && req.source === 'openai-chat' && chatReasoning(req.body).exclude;
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

/** Canonical usage merged from message-start and message-delta (used when ctx.usage is not set). */
export function mergeUsage(into: Usage, part: Partial<Usage>): void {
  for (const key of Object.keys(part) as (keyof Usage)[]) {
    const value = part[key];
    if (value !== undefined) into[key] = value;
  }
}

/**
 * The chat `usage` object: `prompt_tokens` counts every input token (cached and written too),
 * `completion_tokens` includes reasoning; `cost` is what settle charges, in USD. Validated usage
 * (`ctx.usage`, kept by the integrity stage) wins over the usage seen in the events.
 */
export function chatUsage(ctx: RequestContext, seen: Usage): JsonObject {
  const u = ctx.usage ?? seen;
  const prompt = u.input + u.cacheRead + u.cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
    cost: unitsToUsd(ctx.usage === null ? 0 : costOfUsage(ctx)),
  };
}

/** A tool call's `arguments`: the streamed JSON, or the whole input a block opened with, or `{}`. */
export function toolArguments(streamed: string, input: JsonObject | null): string {
  if (streamed !== '') return streamed;
  return input === null ? '{}' : JSON.stringify(input);
}
