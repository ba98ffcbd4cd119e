// A Chat Completions request to an OpenAI Chat deployment is forwarded natively: the validated body
// with the upstream model name, and only what the gateway owns changed:
// - `max_completion_tokens` = the (capped) ceiling; the deprecated `max_tokens` is folded into it
//   (reasoning models refuse `max_tokens`);
// - `reasoning` becomes OpenAI's `reasoning_effort` (the budget and `exclude` have no OpenAI
//   equivalent and are dropped); the `gateway-auto` default effort is sent as well;
// - streams always ask for usage (`stream_options.include_usage`, decisions §8); no stream, no
//   `stream_options`;
// - gateway-only and ignored parameters are removed: `metadata` (OpenAI refuses it without `store`),
//   `store`, `service_tier` (would change the upstream price), `logit_bias`, `logprobs`,
//   `top_logprobs`, `seed`, `prediction`, `user`, `verbosity`. Kept as upstream hints:
//   `prompt_cache_key`, `prompt_cache_retention`, `safety_identifier`;
// - `tools: []` is dropped, and `tool_choice` / `parallel_tool_calls` with it (OpenAI refuses them
//   without tools);
// - assistant `reasoning` / `reasoning_details` (the gateway's round-trip state) and the
//   response-side fields a returned message carries back (`parsed`, `annotations`, `audio`,
//   `function_call`, `refusal: null`, a call's `parsed_arguments`: decisions §10) are removed from
//   the messages that carry them; other messages are not copied. Reasoning a Chat upstream wrote
//   (held by the client in `reasoning_details`) goes back as `reasoning_content` (F23);
// - the client fields `cache_control` and a tool message's `name` are removed (client-fields.ts).
// The body goes upstream as the client's bytes with only those top-level members edited
// (lib/json/edit-members.ts): usually `model`, an added `max_completion_tokens` and, streaming, an
// added or replaced `stream_options`. The messages are re-serialised only when one of them changed.
import { copyWith } from '../../json/copy-with.js';
import type { Deployment, JsonObject, JsonValue, RoutedRequest } from '../../chunks.js';
import type { EncodedCall, UpstreamCall } from '../dialect.js';
import { editedBody } from '../../json/edit-members.js';
import { withoutClientFields } from './client-fields.js';
import { chatReasoning } from './validate.js';
import { isChatReasoningSignature } from '../../translate/reasoning-state.js';

const DROPPED = [
  'max_tokens', 'max_completion_tokens', 'reasoning', 'reasoning_effort', 'stream_options', 'metadata', 'store', 'service_tier',
  'logit_bias', 'logprobs', 'top_logprobs', 'seed', 'prediction', 'user', 'verbosity',
] as const;

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Assistant fields that never go upstream: the gateway's reasoning state and response-side fields. */
const ROUND_TRIP_ONLY = ['reasoning', 'reasoning_details', 'parsed', 'annotations', 'audio', 'function_call'] as const;

/** A message carries one of ROUND_TRIP_ONLY (named loads: a keyed load per name per message cost more than the rest of the loop) */
function roundTripOnly(m: JsonObject): boolean {
  return m.reasoning !== undefined || m.reasoning_details !== undefined || m.parsed !== undefined || m.annotations !== undefined || m.audio !== undefined || m.function_call !== undefined;
}

function hasParsedArguments(calls: JsonValue | undefined): calls is JsonValue[] {
  return Array.isArray(calls) && calls.some((c) => isObject(c) && isObject(c.function) && c.function.parsed_arguments !== undefined);
}

/** Tool calls without the SDK's `parsed_arguments`. */
function plainCalls(calls: JsonValue[]): JsonValue[] {
  return calls.map((c) => {
    if (!isObject(c) || !isObject(c.function) || c.function.parsed_arguments === undefined) return c;
    const { parsed_arguments: _p, ...fn } = c.function;
    return { ...c, function: fn };
  });
}

/**
 * The reasoning a Chat upstream wrote (`reasoning_content`, DeepSeek / Kimi / vLLM reasoning
 * parsers), as the client holds it: `reasoning_details` entries signed CHAT_REASONING_SIGNATURE (a
 * Responses client's reasoning item arrives here as the same entries). '' when there is none.
 */
function chatReasoningText(details: JsonValue | undefined): string {
  if (!Array.isArray(details)) return '';
  let text = '';
  for (const d of details) if (isObject(d) && d.type === 'reasoning.text' && isChatReasoningSignature(d.signature) && typeof d.text === 'string') text += d.text;
  return text;
}

/**
 * Messages without the round-trip-only fields; the input array itself when none carries them.
 * Reasoning a Chat upstream wrote goes back as the message's `reasoning_content`, which
 * thinking-mode Chat models refuse a tool-call turn without (FAILURE-MODES F23), unless the client
 * sent `reasoning_content` itself.
 */
function upstreamMessages(messages: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(messages)) return messages;
  let out: JsonValue[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m) || (!roundTripOnly(m) && m.refusal !== null && !hasParsedArguments(m.tool_calls))) continue;
    out ??= messages.slice();
    const rest: JsonObject = { ...m };
    const reasoning = rest.reasoning_content === undefined ? chatReasoningText(rest.reasoning_details) : '';
    for (const k of ROUND_TRIP_ONLY) delete rest[k];
    if (reasoning !== '') rest.reasoning_content = reasoning;
    if (rest.refusal === null) delete rest.refusal; // a refusal the model gave is history; a null says nothing
    if (hasParsedArguments(rest.tool_calls)) rest.tool_calls = plainCalls(rest.tool_calls);
    out[i] = rest;
  }
  return out ?? messages;
}

const DROPPED_SET: ReadonlySet<string> = new Set(DROPPED);
/** Left out besides, per request: `stream` of a request that does not stream, the tool members of one without tools. */
const TOOL_MEMBERS = ['tools', 'tool_choice', 'parallel_tool_calls'];
const LEFT_OUT: readonly ReadonlySet<string>[] = [new Set(), new Set(['stream']), new Set(TOOL_MEMBERS), new Set(['stream', ...TOOL_MEMBERS])];

/**
 * The client's members that go upstream, in their order, with `model` set (added last when
 * missing), the DROPPED ones, those in `leftOut` and nulls ("not given") left out. Copied one by
 * one: a copy with members deleted is a dictionary-mode object, slower to build and to walk
 * (edit-members.ts).
 */
function keptMembers(src: JsonObject, model: string, leftOut: ReadonlySet<string>): JsonObject {
  const body: JsonObject = {};
  let named = false;
  for (const key in src) {
    if (key === 'model') {
      body.model = model;
      named = true;
      continue;
    }
    const value = src[key]!;
    if (value === null || DROPPED_SET.has(key) || leftOut.has(key)) continue;
    // an own `__proto__` member (the strict parser keeps one as data) is data here too, never the prototype
    if (key === '__proto__') Object.defineProperty(body, key, { value, writable: true, enumerable: true, configurable: true });
    else body[key] = value;
  }
  if (!named) body.model = model;
  return body;
}

/** The upstream body as a value. */
function chatUpstreamBody(routed: RoutedRequest, deployment: Deployment): JsonObject {
  const req = routed.request;
  const src = req.body;
  const noTools = !Array.isArray(src.tools) || src.tools.length === 0;
  const body = keptMembers(src, deployment.upstreamModel, LEFT_OUT[(req.stream ? 0 : 1) + (noTools ? 2 : 0)]!);
  if (routed.maxTokens !== null) body.max_completion_tokens = routed.maxTokens;

  // a model that does not reason rejects the parameter, even `none`
  const effort = routed.modelReasoning ? chatReasoning(routed.request).effort : undefined;
  if (effort !== undefined) body.reasoning_effort = effort;

  if (req.stream) {
    body.stream = true;
    const options = src.stream_options;
    // the client's own object when it already asks for usage: its bytes then go upstream unedited
    body.stream_options = !isObject(options) ? { include_usage: true } : options.include_usage === true ? options : copyWith(options, 'include_usage', true);
  }
  body.messages = withoutClientFields(upstreamMessages(src.messages)) ?? [];
  return body;
}

/** The upstream call, serialised (the body of another dialect's request rewritten as Chat goes this way). */
export function chatNative(routed: RoutedRequest, deployment: Deployment): UpstreamCall {
  return { body: JSON.stringify(chatUpstreamBody(routed, deployment)), headers: {}, stream: routed.request.stream };
}

/** The RequestEncoder of a Chat client's request to a Chat deployment: the client's bytes, edited. */
export function chatNativeCall(routed: RoutedRequest, deployment: Deployment): EncodedCall {
  const req = routed.request;
  const body = chatUpstreamBody(routed, deployment);
  const edited = req.raw !== undefined ? editedBody(req.raw, req.body, body) : null;
  return { body: edited ?? JSON.stringify(body), headers: {}, stream: req.stream };
}
