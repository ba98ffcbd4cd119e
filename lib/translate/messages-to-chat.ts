// A validated Messages request → an OpenAI Chat Completions deployment (`POST {baseUrl}/chat/completions`).
// The conversation is mapped in messages-to-chat-turns.ts; this file maps the request parameters.
//
// Mapping decisions (also in the reply to the lead):
// - Custom tools → function tools with `parameters` = `input_schema` as is. `strict` is not sent
//   (OpenAI's strict mode requires every property to be required, so a schema Anthropic accepts
//   could be refused upstream); `defer_loading` tools are kept (Chat has no deferred loading: the
//   tool is simply declared), `cache_control`, `eager_input_streaming`, `input_examples` and
//   `allowed_callers` are dropped. A hosted tool (any other `type`) cannot run on a Chat deployment:
//   400 capability_rejected at `tools[i]`.
// - `tools`, `tool_choice` and `parallel_tool_calls` are sent only when at least one tool is
//   declared (OpenAI refuses an empty `tools` array and a `tool_choice` without tools).
// - Effort: `output_config.effort` maps by EFFORT_TO_CHAT (xhigh and max → high); without an effort,
//   adaptive thinking → `high` (Anthropic's default effort) and enabled thinking → `high` when the
//   budget (reconciled `routed.thinkingBudget` first) is ≥ 16000, else `medium`; `disabled` or no
//   thinking → nothing. The per-turn `output_config` of inline system turns is dropped.
// - `output_config.format` → `response_format` json_schema; a `name` OpenAI would refuse (it must
//   match ^[a-zA-Z0-9_-]{1,64}$) is sanitised, a missing one becomes "response".
// - `max_completion_tokens` = the capped `routed.maxTokens`; `top_k`, `cache_control`,
//   `context_management`, `service_tier`, `speed`, `diagnostics`, `safeguards`, `container`,
//   `output_config.task_budget` are dropped; betas and `anthropic-*` headers are not forwarded.
// - `metadata.user_id` (a non-empty string) → `user`. Streams always ask for usage (decisions §8).
import type { Deployment, JsonObject, JsonValue, RoutedRequest } from '../chunks.js';
import type { UpstreamCall } from '../dialects/dialect.js';
import { chatMessages } from './messages-to-chat-turns.js';
import {
  asArray, asString, DEFAULT_EFFORT, effortForBudget, EFFORT_TO_CHAT, isObject, messagesFunctionTools, TOOL_CHOICE_TO_CHAT, type ChatEffort,
} from './tables.js';

/** The RequestEncoder for `anthropic` requests served by a `chat` deployment. */
export function anthropicToChat(routed: RoutedRequest, deployment: Deployment): UpstreamCall {
  const req = routed.request;
  const body = req.body;
  const out: JsonObject = { model: deployment.upstreamModel, messages: chatMessages(body) };

  const tools = chatTools(body.tools, routed.modelId);
  if (tools.length > 0) {
    out.tools = tools;
    const choice = isObject(body.tool_choice) ? body.tool_choice : undefined;
    const mapped = choice === undefined ? undefined : chatToolChoice(choice);
    if (mapped !== undefined) out.tool_choice = mapped;
    if (choice?.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  }

  out.max_completion_tokens = routed.maxTokens ?? routed.modelMaxOutputTokens;
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  const stop = asArray(body.stop_sequences).filter((s): s is string => typeof s === 'string');
  if (stop.length > 0) out.stop = stop;

  const effort = routed.modelReasoning ? chatEffort(body, routed.thinkingBudget) : undefined;
  if (effort !== undefined) out.reasoning_effort = effort;
  const format = responseFormat(body.output_config);
  if (format !== undefined) out.response_format = format;

  const userId = isObject(body.metadata) ? asString(body.metadata.user_id) : undefined;
  if (userId !== undefined && userId !== '') out.user = userId;
  if (req.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return { body: JSON.stringify(out), headers: {}, stream: req.stream };
}

function chatTools(v: JsonValue | undefined, modelId: string): JsonObject[] {
  return messagesFunctionTools(v, modelId).map(({ name, description, parameters }) => {
    const fn: JsonObject = { name };
    if (description !== undefined) fn.description = description;
    fn.parameters = parameters;
    return { type: 'function', function: fn };
  });
}

function chatToolChoice(choice: JsonObject): JsonValue | undefined {
  const type = asString(choice.type) ?? '';
  if (type === 'tool') return { type: 'function', function: { name: asString(choice.name) ?? '' } };
  return Object.hasOwn(TOOL_CHOICE_TO_CHAT, type) ? TOOL_CHOICE_TO_CHAT[type] : undefined;
}

/** Chat `reasoning_effort` for the request's thinking and effort, or undefined for none. */
function chatEffort(body: JsonObject, reconciledBudget: number | null): ChatEffort | undefined {
  const thinking = isObject(body.thinking) ? body.thinking : undefined;
  if (thinking?.type === 'disabled') return undefined;
  const effort = isObject(body.output_config) ? asString(body.output_config.effort) : undefined;
  if (effort !== undefined && Object.hasOwn(EFFORT_TO_CHAT, effort)) return EFFORT_TO_CHAT[effort];
  if (thinking?.type === 'enabled') {
    const budget = reconciledBudget ?? (typeof thinking.budget_tokens === 'number' ? thinking.budget_tokens : 0);
    return effortForBudget(budget);
  }
  if (thinking?.type === 'adaptive') return DEFAULT_EFFORT;
  return undefined;
}

const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function responseFormat(config: JsonValue | undefined): JsonObject | undefined {
  if (!isObject(config) || !isObject(config.format) || config.format.type !== 'json_schema') return undefined;
  const f = config.format;
  const given = asString(f.name);
  let name = 'response';
  if (given !== undefined) name = SCHEMA_NAME.test(given) ? given : given.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  const schema: JsonObject = { name, schema: isObject(f.schema) ? f.schema : {} };
  if (typeof f.strict === 'boolean') schema.strict = f.strict;
  return { type: 'json_schema', json_schema: schema };
}
