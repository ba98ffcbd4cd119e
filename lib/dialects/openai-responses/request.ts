// A validated Responses request → the upstream Responses request (native forwarding). The other
// deployment APIs go through a Chat Completions body: lib/translate/responses-via-chat.ts.
//
// - `openai-responses>responses` (native): the validated body, with only what the gateway owns
//   changed: `model` = the upstream name; `store: false`; `stream` only when streaming;
//   `max_output_tokens` = the capped ceiling (at least 16); `reasoning.effort` `max` → `xhigh`, the
//   `gateway-auto` default effort written, no `reasoning` at all for a model that does not reason;
//   `include` always asks for `reasoning.encrypted_content` when the model reasons (the gateway's
//   own round-trip state; the client sees it only when it asked); tools as sent (`namespace` tools
//   kept whole: Codex routes a namespace member's call by the `namespace` the upstream returns
//   with it, FAILURE-MODES F31) but for the ignored hosted tools, which are removed
//   (`tool_choice` / `parallel_tool_calls` go with an empty tool list); reasoning items carrying
//   Anthropic thinking (`anthropic-thinking:`) removed (OpenAI cannot verify them); a standalone
//   tool output (a name, no call_id: Codex's task input, F33) sent as the user message it stands
//   for (OpenAI refuses an output without call_id); what the `openai` SDK's parse helpers add to
//   echoed output items (`parsed` on an `output_text` part, `parsed_arguments` on a call:
//   decisions §10) removed. Dropped gateway-only or stateful fields:
//   `gateway`, `session_id`, `client_metadata`, `metadata`, `prompt_cache_options`,
//   `service_tier`, `stream_options`, `store`, `previous_response_id`, `background`,
//   `conversation`, `prompt`, `moderation`, `context_management`.
// The body goes upstream as the client's bytes with only the changed top-level members edited
// (lib/json/edit-members.ts): usually `model`, `store`, `max_output_tokens`, `include`, a dropped
// `client_metadata`. `input` and `tools` keep the client's arrays (and bytes) unless an item changed.
import type { Deployment, JsonObject, JsonValue, RoutedRequest } from '../../chunks.js';
import type { EncodedCall } from '../dialect.js';
import { editedBody } from '../../json/edit-members.js';
import { asArray, isObject } from '../../json/values.js';
import { isAnthropicEncrypted } from './client-state.js';
import { responsesFacts } from './client-validate.js';
import { isStandaloneOutput, standaloneOutputText } from './client-tools.js';
import { ENCRYPTED_REASONING, MIN_OUTPUT_TOKENS } from './request-common.js';

// ---- native -------------------------------------------------------------------------------------

const NATIVE_DROPPED: ReadonlySet<string> = new Set([
  'gateway', 'session_id', 'client_metadata', 'metadata', 'prompt_cache_options', 'service_tier', 'stream_options', 'store',
  'previous_response_id', 'background', 'conversation', 'prompt', 'moderation', 'context_management', 'stream',
  'max_output_tokens', 'reasoning', 'include', 'tools', 'tool_choice', 'parallel_tool_calls',
]);

/**
 * The client's members that go upstream as they are, in the client's order: not dropped, not null,
 * `model` the upstream's name (added at the end when the client sent none). Copied member by member
 * into a new object rather than copied whole and then deleted from (a `delete` of a member puts the
 * object in V8's dictionary mode: about 0.9 against 0.1 µs for the bench body, Node 20).
 */
function keptMembers(src: JsonObject, model: string): JsonObject {
  const out: JsonObject = {};
  for (const key in src) {
    const value = key === 'model' ? model : src[key]!;
    if (value === null || NATIVE_DROPPED.has(key)) continue;
    // an own `__proto__` member (the strict parser keeps one as data) is defined, never set
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  if (!Object.hasOwn(src, 'model')) out.model = model;
  return out;
}

/** A copy of `o` without `key`; `o` itself when it has no such key. */
function without(o: JsonObject, key: string): JsonObject {
  if (o[key] === undefined) return o;
  const out = { ...o };
  delete out[key];
  return out;
}

/** An echoed output item without the SDK's parse results; the item itself when it has none. */
function withoutParsed(item: JsonValue): JsonValue {
  if (!isObject(item)) return item;
  const out = without(item, 'parsed_arguments');
  if (out.type !== 'message' || !Array.isArray(out.content) || !out.content.some((p) => isObject(p) && p.parsed !== undefined)) return out;
  return { ...out, content: out.content.map((p) => (isObject(p) ? without(p, 'parsed') : p)) };
}

/** Input items as they go upstream: no Anthropic reasoning (OpenAI cannot verify it), no parse results. */
function upstreamInput(items: JsonValue[]): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const dropped = isObject(item) && item.type === 'reasoning' && isAnthropicEncrypted(item.encrypted_content);
    const sent = dropped ? item : standaloneAsUser(withoutParsed(item));
    if (!dropped && sent === item) {
      out?.push(item);
      continue;
    }
    // the first change: the items so far are kept; from here on the array is a copy
    out ??= items.slice(0, i);
    if (!dropped) out.push(sent);
  }
  return out ?? items;
}

/** The RequestEncoder for `openai-responses` requests served by a `responses` deployment. */
export function responsesNative(routed: RoutedRequest, deployment: Deployment): EncodedCall {
  const req = routed.request;
  const src = req.body;
  const facts = responsesFacts(req);
  const out = keptMembers(src, deployment.upstreamModel);

  if (Array.isArray(src.input)) out.input = upstreamInput(src.input);
  const tools = nativeTools(src.tools, facts.webSearch);
  if (tools.length > 0) {
    out.tools = tools;
    if (src.tool_choice !== undefined && src.tool_choice !== null) out.tool_choice = src.tool_choice;
    if (typeof src.parallel_tool_calls === 'boolean') out.parallel_tool_calls = src.parallel_tool_calls;
  }
  if (routed.maxTokens !== null) out.max_output_tokens = Math.max(routed.maxTokens, MIN_OUTPUT_TOKENS);
  const include = asArray(src.include).filter((v): v is string => typeof v === 'string');
  if (routed.modelReasoning && (facts.effort !== undefined || facts.reasoningGiven)) {
    const reasoning: JsonObject = {};
    if (facts.effort !== undefined) reasoning.effort = facts.effort;
    if (facts.summary !== undefined) reasoning.summary = facts.summary;
    out.reasoning = reasoning;
    if (facts.effort !== 'none' && !include.includes(ENCRYPTED_REASONING)) include.push(ENCRYPTED_REASONING);
  }
  if (include.length > 0) out.include = include;
  out.store = false;
  if (req.stream) out.stream = true;
  const edited = req.raw !== undefined ? editedBody(req.raw, src, out) : null;
  return { body: edited ?? JSON.stringify(out), headers: {}, stream: req.stream };
}

const NATIVE_TOOLS: ReadonlySet<JsonValue> = new Set(['function', 'custom', 'namespace', 'shell', 'apply_patch']);

/** The client's tools an OpenAI Responses deployment runs or lets the client run (not the ignored hosted ones). */
function nativeTools(v: JsonValue | undefined, webSearch: readonly JsonObject[]): JsonValue[] {
  const all = asArray(v);
  const kept = all.filter((t) => isObject(t) && (NATIVE_TOOLS.has(t.type ?? null) || webSearch.includes(t)));
  return kept.length === all.length ? all : kept; // the client's own array when nothing went: its bytes are kept
}

function standaloneAsUser(item: JsonValue): JsonValue {
  if (!isObject(item) || !isStandaloneOutput(item)) return item;
  const output = typeof item.output === 'string' ? item.output : asArray(item.output).map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text: standaloneOutputText(item, output) }] };
}
