// A validated Chat Completions request → an OpenAI Responses deployment (`POST {baseUrl}/responses`).
// The conversation is mapped in chat-to-responses-input.ts, the parts shared with the Messages encoder in
// lib/dialects/openai-responses/request-common.ts; this file maps the Chat parameters.
//
// Mapping decisions (also in the reply to the lead):
// - Function tools → `{type: "function", name, description, parameters, strict}` (`strict` as
//   given, else false). `tool_choice` strings pass; `{type: "function", function: {name}}` →
//   `{type: "function", name}`; `parallel_tool_calls` passes. All three only when tools are declared.
// - Reasoning as the Chat validator's `chatReasoning` normalises it (the `gateway-auto` default
//   effort included): an effort passes as is (Chat and Responses share OpenAI's effort names);
//   a `reasoning.max_tokens` budget (reconciled `routed.thinkingBudget` first) → its effort
//   (≥ 16000 → high, else medium; Responses has no budget); a `reasoning` object with neither →
//   the model's default effort; `exclude: true` → no summary (the encrypted state is still asked
//   for). No settings → no `reasoning`.
// - `response_format` json_schema → `text.format` `{type: "json_schema", name, description,
//   schema, strict}`; json_object → `{type: "json_object"}`; `verbosity` → `text.verbosity`.
// - `user`, `safety_identifier`, `prompt_cache_key`, `prompt_cache_retention` pass. `stop` → 400
//   (request-common.ts). Dropped: penalties, `seed`, `logit_bias`, `logprobs`, `top_logprobs`,
//   `prediction`, `service_tier`, `metadata` (gateway labels), `n` (validated to 1), `store`.
import type { CanonicalRequest, Deployment, JsonObject, JsonValue, RoutedRequest } from '../chunks.js';
import { chatReasoning } from '../dialects/openai-chat/validate.js';
import type { UpstreamCall } from '../dialects/dialect.js';
import { asArray, asString, effortForBudget, isObject } from './tables.js';
import { chatInput } from './chat-to-responses-input.js';
import {
  finishCall, functionTool, jsonSchemaFormat, rejectStop, startBody, writeLimits, writeReasoning, type ReasoningChoice,
} from '../dialects/openai-responses/request-common.js';

const PASSED: readonly string[] = ['user', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention'];

/** The RequestEncoder for `openai-chat` requests served by a `responses` deployment. */
export function chatToResponses(routed: RoutedRequest, deployment: Deployment): UpstreamCall {
  const req = routed.request;
  const body = req.body;
  rejectStop('stop', typeof body.stop === 'string' ? [body.stop] : asArray(body.stop), routed.modelId);
  const out = startBody(deployment.upstreamModel, chatInput(asArray(body.messages), routed.modelId));

  const tools = responsesTools(body.tools);
  if (tools.length > 0) {
    out.tools = tools;
    const choice = toolChoice(body.tool_choice);
    if (choice !== undefined) out.tool_choice = choice;
    if (typeof body.parallel_tool_calls === 'boolean') out.parallel_tool_calls = body.parallel_tool_calls;
  }
  const reasoning = writeReasoning(out, reasoningChoice(req, routed.thinkingBudget));
  writeLimits(out, routed, body, reasoning);

  const text: JsonObject = {};
  const format = textFormat(body.response_format);
  if (format !== undefined) text.format = format;
  if (typeof body.verbosity === 'string') text.verbosity = body.verbosity;
  if (Object.keys(text).length > 0) out.text = text;
  for (const key of PASSED) {
    const value = body[key];
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return finishCall(out, req.stream);
}

function responsesTools(v: JsonValue | undefined): JsonObject[] {
  const out: JsonObject[] = [];
  for (const t of asArray(v)) {
    if (!isObject(t) || !isObject(t.function)) continue;
    const fn = t.function;
    out.push(functionTool(asString(fn.name) ?? '', fn.description, fn.parameters, fn.strict === true));
  }
  return out;
}

function toolChoice(v: JsonValue | undefined): JsonValue | undefined {
  if (typeof v === 'string') return v;
  if (isObject(v) && v.type === 'function' && isObject(v.function)) return { type: 'function', name: asString(v.function.name) ?? '' };
  return undefined;
}

function reasoningChoice(req: CanonicalRequest, reconciledBudget: number | null): ReasoningChoice | undefined {
  const r = chatReasoning(req);
  const summary = !r.exclude;
  if (r.effort !== undefined) return { effort: r.effort, summary };
  if (r.maxTokens !== undefined) return { effort: effortForBudget(reconciledBudget ?? r.maxTokens), summary };
  return isObject(req.body.reasoning) ? { effort: undefined, summary } : undefined;
}

function textFormat(v: JsonValue | undefined): JsonObject | undefined {
  if (!isObject(v)) return undefined;
  if (v.type === 'json_object') return { type: 'json_object' };
  if (v.type !== 'json_schema') return undefined;
  const spec = isObject(v.json_schema) ? v.json_schema : {};
  return jsonSchemaFormat(asString(spec.name), spec.schema, spec.strict, spec.description);
}
