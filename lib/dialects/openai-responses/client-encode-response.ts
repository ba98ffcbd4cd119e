// The Response object a Responses client gets (client-encode-writer.ts): every field the Open
// Responses schema requires (decisions §10), parameters the gateway accepts with no effect echoed as
// given or as their neutral value, the usage in the Responses shape and the `gateway` object. The
// writer's streamed events write the same text from per-stream runs (client-encode-echo.ts); this
// object is what the JSON encoder, the failed event and the tests that hold the runs to it use.
import type { JsonObject, JsonValue, Usage } from '../../chunks.js';
import type { EncoderInput } from '../../encoder-input.js';
import { unitsToUsd } from '../../pricing.js';
import { chatGateway } from '../../openai/client.js';
import type { ResponsesFacts } from './client-validate.js';
import { echoedTools } from './client-encode-echo.js';

/** What a Response of one answer is made from besides its status (the writer's per-response facts). */
export interface ResponseOf {
  readonly input: EncoderInput;
  readonly facts: ResponsesFacts;
  readonly id: string;
  readonly createdAt: number;
  readonly model: string;
}

export interface ResponseExtra {
  error?: JsonValue;
  incomplete?: JsonValue;
  gateway?: boolean;
}

/** The Response object in `status` with these output items (`[]` in progress) and usage. */
export function responseObject(of: ResponseOf, status: string, output: JsonValue[], usage: JsonValue, extra: ResponseExtra = {}): JsonObject {
  const body = of.input.routed?.request.body ?? {};
  const text = body.text;
  const out: JsonObject = {
    id: of.id,
    object: 'response',
    created_at: of.createdAt,
    completed_at: status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    status,
    background: false,
    error: extra.error ?? null,
    incomplete_details: extra.incomplete ?? null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: of.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: of.facts.effort ?? null, summary: of.facts.summary ?? null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: null,
    store: false,
    temperature: body.temperature ?? 1,
    presence_penalty: 0, // not request parameters of this API: the neutral value
    frequency_penalty: 0,
    text: typeof text === 'object' && text !== null && !Array.isArray(text) ? { format: { type: 'text' }, ...text } : { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: echoedTools(body.tools),
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
  if (extra.gateway) out.gateway = gatewayOf(of.input, status !== 'failed');
  return out;
}

/** The `gateway` object (a fresh one); `charged`: false for a failed response, which is charged nothing (settle's rule), so reports 0 */
export function gatewayOf(input: EncoderInput, charged: boolean): JsonObject {
  const out = chatGateway(input);
  out.cost = charged ? unitsToUsd(input.cost()) : 0;
  return out;
}

/** A Response's usage of canonical usage `u` (input_tokens counts cached tokens too). */
export function usageObject(u: Usage): JsonObject {
  const input = u.input + u.cacheRead + u.cacheWrite;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: input + u.output,
  };
}
