// What both request encoders (lib/translate/messages-to-responses.ts, chat-to-responses.ts) write the same way:
// input item builders, reasoning, sampling, the JSON-schema text format, function tools, and the
// fixed tail of every upstream Responses call.
//
// - Reasoning on (an effort other than `none`) → `reasoning: {effort, summary: "auto"}` (no
//   summary when the caller asked not to see reasoning) and ALWAYS `include:
//   ["reasoning.encrypted_content"]`: with `store: false` that is the only way the next turn can
//   return the model's reasoning. Effort `none` → `reasoning: {effort: "none"}` alone.
// - With reasoning on, `temperature` and `top_p` are not sent: OpenAI's reasoning models accept
//   only their defaults. Otherwise they are sent as given.
// - `max_output_tokens` = the capped `routed.maxTokens`, raised to OpenAI's minimum of 16; omitted
//   when the caller gave none. `store: false` always (the gateway is stateless); `stream: true`
//   only on streamed requests.
// - Stop sequences have no Responses counterpart: a request with any is 400 capability_rejected
//   (silently ignoring them would change what the caller gets back).
// - Function tools are sent with `strict: false` unless the caller asked for strict mode: the
//   Responses API makes tools strict by default, which refuses most JSON Schemas written for other
//   APIs.
import type { JsonObject, JsonValue, RoutedRequest } from '../../chunks.js';
import { capabilityRejected } from '../../errors.js';
import type { UpstreamCall } from '../dialect.js';
import { isObject } from '../../json/values.js';

/** Joins the system texts that become `instructions`. */
export const INSTRUCTIONS_SEPARATOR = '\n\n';
/** OpenAI refuses a smaller `max_output_tokens`. */
export const MIN_OUTPUT_TOKENS = 16;
export const ENCRYPTED_REASONING = 'reasoning.encrypted_content';

export interface ResponsesInput {
  instructions: string | undefined;
  input: JsonObject[];
}

export function inputText(text: string): JsonObject {
  return { type: 'input_text', text };
}

export function inputImage(url: string, detail = 'auto'): JsonObject {
  return { type: 'input_image', image_url: url, detail };
}

export function outputText(text: string): JsonObject {
  return { type: 'output_text', text };
}

export function assistantMessage(parts: JsonObject[]): JsonObject {
  return { type: 'message', role: 'assistant', content: parts };
}

export function functionCall(callId: string, name: string, args: string): JsonObject {
  return { type: 'function_call', call_id: callId, name, arguments: args };
}

export function functionTool(name: string, description: JsonValue | undefined, parameters: JsonValue | undefined, strict: boolean): JsonObject {
  const tool: JsonObject = { type: 'function', name };
  if (typeof description === 'string') tool.description = description;
  // a no-argument `{"type": "object"}` gets `properties: {}`: OpenAI refuses it without (FAILURE-MODES F36)
  tool.parameters = !isObject(parameters) ? { type: 'object', properties: {} } : parameters.type === 'object' && parameters.properties === undefined ? { ...parameters, properties: {} } : parameters;
  tool.strict = strict;
  return tool;
}

/** The request body so far: model, instructions, input. */
export function startBody(model: string, { instructions, input }: ResponsesInput): JsonObject {
  const out: JsonObject = { model };
  if (instructions !== undefined) out.instructions = instructions;
  out.input = input;
  return out;
}

export interface ReasoningChoice {
  /** undefined: the model's default effort */
  effort: string | undefined;
  /** ask for a reasoning summary (the thinking text a client sees) */
  summary: boolean;
}

/** Writes `reasoning` and `include`; returns true when the model will reason. */
export function writeReasoning(out: JsonObject, choice: ReasoningChoice | undefined): boolean {
  if (choice === undefined) return false;
  if (choice.effort === 'none') {
    out.reasoning = { effort: 'none' };
    return false;
  }
  const reasoning: JsonObject = {};
  if (choice.effort !== undefined) reasoning.effort = choice.effort;
  if (choice.summary) reasoning.summary = 'auto';
  out.reasoning = reasoning;
  out.include = [ENCRYPTED_REASONING];
  return true;
}

/** `max_output_tokens`, then `temperature` / `top_p` (not with reasoning on). */
export function writeLimits(out: JsonObject, routed: RoutedRequest, body: JsonObject, reasoning: boolean): void {
  if (routed.maxTokens !== null) out.max_output_tokens = Math.max(routed.maxTokens, MIN_OUTPUT_TOKENS);
  if (reasoning) return;
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
}

/** 400 when the request has stop sequences. */
export function rejectStop(path: string, stops: readonly JsonValue[], modelId: string): void {
  if (!stops.some((s) => typeof s === 'string' && s !== '')) return;
  throw capabilityRejected(
    path,
    `the served model ${modelId} is reached through the Responses API, which has no stop sequences. Remove "${path}" or pin another model. The API that serves a model is \`models[].deployments[].api\` in the gateway config.`,
  );
}

const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** `text.format` for a JSON schema; a name OpenAI would refuse is sanitised, a missing one is "response". */
export function jsonSchemaFormat(name: string | undefined, schema: JsonValue | undefined, strict: JsonValue | undefined, description?: JsonValue): JsonObject {
  let safe = 'response';
  if (name !== undefined && name !== '') safe = SCHEMA_NAME.test(name) ? name : name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  const format: JsonObject = { type: 'json_schema', name: safe };
  if (typeof description === 'string') format.description = description;
  format.schema = isObject(schema) ? schema : {};
  if (typeof strict === 'boolean') format.strict = strict;
  return format;
}

/** The fixed tail (`store`, `stream`) and the call. */
export function finishCall(out: JsonObject, stream: boolean): UpstreamCall {
  out.store = false;
  if (stream) out.stream = true;
  return { body: JSON.stringify(out), headers: {}, stream };
}
