// A validated Chat Completions request → an Anthropic Messages deployment (`POST {baseUrl}/v1/messages`).
// The conversation is mapped in chat-to-messages-turns.ts; this file maps the request parameters.
//
// Mapping decisions (also in the reply to the lead):
// - Reasoning as the Chat validator's `chatReasoning` normalises it (`reasoning` wins over
//   `reasoning_effort`; the `gateway-auto` default effort included). No settings → no thinking;
//   effort `none` → no thinking; an effort → adaptive thinking + `output_config.effort` by
//   EFFORT_TO_ANTHROPIC (minimal → low); a `max_tokens` budget → `thinking: enabled` with
//   `routed.thinkingBudget ?? max_tokens`, raised to Anthropic's minimum of 1024; a `reasoning`
//   object with neither → adaptive thinking at the model's default effort; `exclude: true` →
//   `display: "omitted"` (the text is not sent, the signature still is). A budget that is not
//   below `max_tokens`, or forced tool use (Anthropic refuses it with a manual budget), becomes
//   adaptive thinking with the budget's effort (≥ 16000 → high, else medium).
// - With thinking on, Anthropic accepts only `temperature` 1 and `top_p` ≥ 0.95: other values are
//   dropped. Otherwise `temperature` is clamped to [0, 1] (Chat allows up to 2) and `top_p` is sent.
// - `max_tokens` (required by Anthropic) = the capped `routed.maxTokens`, else the model's maximum.
// - `stop` (string or list) → `stop_sequences`, blank sequences dropped (Anthropic refuses them).
// - `tool_choice` and `parallel_tool_calls` are sent only when tools are declared;
//   `parallel_tool_calls: false` → `disable_parallel_tool_use: true` (on `auto` when no choice is
//   given; never on `none`). `function.strict` is dropped (ignored on Chat, spec).
// - `response_format` json_schema → `output_config.format` (name and strict when given);
//   `json_object` (or json_schema without a schema) → a final system text block asking for one JSON
//   object.
// - `safety_identifier`, else `user` → `metadata.user_id`. Penalties, seed, logit_bias, logprobs,
//   n, metadata, prompt_cache_*, service_tier, verbosity, prediction, store → dropped. No headers.
import { copyWith } from '../json/copy-with.js';
import type { Deployment, JsonObject, JsonValue, RoutedRequest } from '../chunks.js';
import { invalid } from '../errors.js';
import type { UpstreamCall } from '../dialects/dialect.js';
import { chatReasoning } from '../dialects/openai-chat/validate.js';
import { anthropicTurns } from './chat-to-messages-turns.js';
import {
  asArray, asString, effortForBudget, EFFORT_TO_ANTHROPIC, isObject, JSON_OBJECT_INSTRUCTION,
  MIN_THINKING_BUDGET, TOOL_CHOICE_TO_ANTHROPIC,
} from './tables.js';

/** The RequestEncoder for `openai-chat` requests served by a `messages` deployment. */
export function chatToAnthropic(routed: RoutedRequest, deployment: Deployment): UpstreamCall {
  const req = routed.request;
  const body = req.body;
  const maxTokens = routed.maxTokens ?? routed.modelMaxOutputTokens;
  const { system, messages } = anthropicTurns(asArray(body.messages), routed.modelId);
  if (messages.length === 0) {
    throw invalid('messages', `needs at least one user or assistant message: the served model ${routed.modelId} takes the system prompt separately`);
  }
  const format = outputFormat(body.response_format);
  if (format === 'json_object') system.push({ type: 'text', text: JSON_OBJECT_INSTRUCTION });

  const out: JsonObject = { model: deployment.upstreamModel, max_tokens: maxTokens };
  if (system.length > 0) out.system = system;
  out.messages = messages;

  const tools = anthropicTools(body.tools);
  let choice: JsonObject | undefined;
  if (tools.length > 0) {
    out.tools = tools;
    choice = toolChoice(body.tool_choice, body.parallel_tool_calls === false);
    if (choice !== undefined) out.tool_choice = choice;
  }
  const forced = choice?.type === 'any' || choice?.type === 'tool';
  const { thinking, effort } = routed.modelReasoning ? thinkingFor(body, routed, maxTokens, forced) : { thinking: undefined, effort: undefined };
  if (thinking !== undefined) out.thinking = thinking;
  const config: JsonObject = {};
  if (effort !== undefined) config.effort = effort;
  if (isObject(format)) config.format = format;
  if (Object.keys(config).length > 0) out.output_config = config;

  const temperature = typeof body.temperature === 'number' ? Math.min(Math.max(body.temperature, 0), 1) : undefined;
  const topP = typeof body.top_p === 'number' ? body.top_p : undefined;
  if (temperature !== undefined && (thinking === undefined || temperature === 1)) out.temperature = temperature;
  if (topP !== undefined && (thinking === undefined || topP >= 0.95)) out.top_p = topP;
  const stop = typeof body.stop === 'string' ? [body.stop] : asArray(body.stop);
  const sequences = stop.filter((s): s is string => typeof s === 'string' && s.trim() !== '');
  if (sequences.length > 0) out.stop_sequences = sequences;

  const userId = [asString(body.safety_identifier), asString(body.user)].find((u) => u !== undefined && u !== '');
  if (userId !== undefined) out.metadata = { user_id: userId };
  if (req.stream) out.stream = true;
  return { body: JSON.stringify(out), headers: {}, stream: req.stream };
}

function anthropicTools(v: JsonValue | undefined): JsonObject[] {
  const list = asArray(v);
  const out: JsonObject[] = [];
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if (!isObject(t)) continue;
    if (t.type !== 'function' || !isObject(t.function)) {
      throw invalid(`tools[${i}].type`, `tool type "${String(t.type)}" cannot be sent to an Anthropic model; declare a function tool`);
    }
    const fn = t.function;
    const tool: JsonObject = { name: asString(fn.name) ?? '' };
    if (typeof fn.description === 'string') tool.description = fn.description;
    tool.input_schema = isObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} };
    out.push(tool);
  }
  return out;
}

function toolChoice(v: JsonValue | undefined, noParallel: boolean): JsonObject | undefined {
  let choice: JsonObject | undefined;
  if (typeof v === 'string' && Object.hasOwn(TOOL_CHOICE_TO_ANTHROPIC, v)) choice = { type: TOOL_CHOICE_TO_ANTHROPIC[v] ?? 'auto' };
  else if (isObject(v) && v.type === 'function' && isObject(v.function)) choice = { type: 'tool', name: asString(v.function.name) ?? '' };
  if (!noParallel || choice?.type === 'none') return choice;
  return copyWith(choice ?? { type: 'auto' }, 'disable_parallel_tool_use', true);
}

function thinkingFor(
  body: JsonObject, routed: RoutedRequest, maxTokens: number, forced: boolean,
): { thinking?: JsonObject; effort?: string } {
  const r = chatReasoning(routed.request);
  if (r.effort === 'none' || (r.effort === undefined && r.maxTokens === undefined && !isObject(body.reasoning))) return {};
  const display: JsonObject = r.exclude === true ? { display: 'omitted' } : {};
  if (r.maxTokens !== undefined) {
    const budget = Math.max(routed.thinkingBudget ?? r.maxTokens, MIN_THINKING_BUDGET);
    if (!forced && budget < maxTokens) return { thinking: { type: 'enabled', budget_tokens: budget, ...display } };
    return { thinking: { type: 'adaptive', ...display }, effort: effortForBudget(budget) };
  }
  const thinking: JsonObject = { type: 'adaptive', ...display };
  if (r.effort !== undefined && Object.hasOwn(EFFORT_TO_ANTHROPIC, r.effort)) return { thinking, effort: EFFORT_TO_ANTHROPIC[r.effort] };
  return { thinking };
}

/** `response_format` → `output_config.format`, 'json_object' for the instruction, or nothing. */
function outputFormat(v: JsonValue | undefined): JsonObject | 'json_object' | undefined {
  if (!isObject(v)) return undefined;
  if (v.type === 'json_object') return 'json_object';
  if (v.type !== 'json_schema') return undefined;
  const spec = isObject(v.json_schema) ? v.json_schema : {};
  if (!isObject(spec.schema)) return 'json_object';
  const format: JsonObject = { type: 'json_schema', schema: spec.schema };
  if (typeof spec.name === 'string' && spec.name !== '') format.name = spec.name;
  if (typeof spec.strict === 'boolean') format.strict = spec.strict;
  return format;
}
