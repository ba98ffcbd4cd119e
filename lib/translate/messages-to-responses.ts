// A validated Messages request → an OpenAI Responses deployment (`POST {baseUrl}/responses`).
// The conversation is mapped in messages-to-responses-input.ts, the parts shared with the Chat encoder in
// lib/dialects/openai-responses/request-common.ts; this file maps the Messages parameters.
//
// Mapping decisions (also in the reply to the lead):
// - Custom tools → `{type: "function", name, description, parameters: input_schema, strict: false}`;
//   a hosted tool (any other `type`) cannot run on a Responses deployment: 400
//   capability_rejected at `tools[i]` (as on Chat). `tools`, `tool_choice` and
//   `parallel_tool_calls` are sent only when a tool is declared. `tool_choice` by
//   TOOL_CHOICE_TO_CHAT (auto, any → required, none), `{type: tool, name}` → `{type: "function",
//   name}`; `disable_parallel_tool_use: true` → `parallel_tool_calls: false`.
// - Effort, as on Chat: `output_config.effort` by EFFORT_TO_CHAT (xhigh and max → high); without
//   it adaptive thinking → `high` (Anthropic's default effort) and enabled thinking → the budget's
//   effort (≥ 16000 → high, else medium, the reconciled budget first); disabled or no thinking →
//   no `reasoning` (the model's default). `thinking.display: "omitted"` → no summary.
// - `output_config.format` (json_schema) → `text.format` `{type: "json_schema", name, schema,
//   strict}`. `metadata.user_id` → `user`. `stop_sequences` → 400 (request-common.ts). Dropped:
//   `top_k`, `cache_control`, `context_management`, `container`, `service_tier`, `speed`,
//   `diagnostics`, `safeguards`, `output_config.task_budget`, betas and `anthropic-*` headers.
import type { Deployment, JsonObject, JsonValue, RoutedRequest } from '../chunks.js';
import type { UpstreamCall } from '../dialects/dialect.js';
import {
  asArray, asString, DEFAULT_EFFORT, effortForBudget, EFFORT_TO_CHAT, isObject, messagesFunctionTools, TOOL_CHOICE_TO_CHAT,
} from './tables.js';
import { messagesInput } from './messages-to-responses-input.js';
import {
  finishCall, functionTool, jsonSchemaFormat, rejectStop, startBody, writeLimits, writeReasoning, type ReasoningChoice,
} from '../dialects/openai-responses/request-common.js';

/** The RequestEncoder for `anthropic` requests served by a `responses` deployment. */
export function anthropicToResponses(routed: RoutedRequest, deployment: Deployment): UpstreamCall {
  const req = routed.request;
  const body = req.body;
  rejectStop('stop_sequences', asArray(body.stop_sequences), routed.modelId);
  const out = startBody(deployment.upstreamModel, messagesInput(body));

  const tools = responsesTools(body.tools, routed.modelId);
  if (tools.length > 0) {
    out.tools = tools;
    const choice = isObject(body.tool_choice) ? body.tool_choice : undefined;
    const mapped = choice === undefined ? undefined : toolChoice(choice);
    if (mapped !== undefined) out.tool_choice = mapped;
    if (choice?.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  }
  const reasoning = writeReasoning(out, reasoningChoice(body, routed.thinkingBudget));
  writeLimits(out, routed, body, reasoning);

  const config = isObject(body.output_config) ? body.output_config : undefined;
  const format = isObject(config?.format) ? config.format : undefined;
  if (format?.type === 'json_schema') out.text = { format: jsonSchemaFormat(asString(format.name), format.schema, format.strict) };

  const userId = isObject(body.metadata) ? asString(body.metadata.user_id) : undefined;
  if (userId !== undefined && userId !== '') out.user = userId;
  return finishCall(out, req.stream);
}

function responsesTools(v: JsonValue | undefined, modelId: string): JsonObject[] {
  return messagesFunctionTools(v, modelId).map((t) => functionTool(t.name, t.description, t.parameters, false));
}

function toolChoice(choice: JsonObject): JsonValue | undefined {
  const type = asString(choice.type) ?? '';
  if (type === 'tool') return { type: 'function', name: asString(choice.name) ?? '' };
  return Object.hasOwn(TOOL_CHOICE_TO_CHAT, type) ? TOOL_CHOICE_TO_CHAT[type] : undefined;
}

/** The reasoning for the request's thinking and effort, or undefined for none. */
function reasoningChoice(body: JsonObject, reconciledBudget: number | null): ReasoningChoice | undefined {
  const thinking = isObject(body.thinking) ? body.thinking : undefined;
  if (thinking?.type === 'disabled') return undefined;
  const summary = thinking?.display !== 'omitted';
  const effort = isObject(body.output_config) ? asString(body.output_config.effort) : undefined;
  if (effort !== undefined && Object.hasOwn(EFFORT_TO_CHAT, effort)) return { effort: EFFORT_TO_CHAT[effort], summary };
  if (thinking?.type === 'enabled') {
    const budget = reconciledBudget ?? (typeof thinking.budget_tokens === 'number' ? thinking.budget_tokens : 0);
    return { effort: effortForBudget(budget), summary };
  }
  if (thinking?.type === 'adaptive') return { effort: DEFAULT_EFFORT, summary };
  return undefined;
}
