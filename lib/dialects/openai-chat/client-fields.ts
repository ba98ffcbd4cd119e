// Fields that widely used Chat Completions clients put on messages although OpenAI's own API does
// not define them, accepted so that those clients work unmodified:
// - `cache_control` on a message, a content part or a tool call: the prompt-caching breakpoint of
//   OpenRouter's Chat API, which `@ai-sdk/openai-compatible` passes through from provider options;
//   OpenCode sets it on the system prompt and the last two messages whenever the model is a Claude
//   model. Same object as on Messages: `{type: "ephemeral", ttl?: "5m" | "1h", scope?: "global"}`, checked by lib/validate/cache-control.ts.
//   A Messages upstream gets it on the block made from what it marks (chat-to-messages-turns.ts).
// - `name` on a `tool` message: LangChain's ChatOpenAI sends the tool's name there.
// An OpenAI Chat upstream gets neither (it caches prompts by itself, and the tool message is bound by
// `tool_call_id`): `withoutClientFields` removes them before a request is forwarded natively.
import type { JsonObject, JsonValue } from '../../chunks.js';


function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `list` without the objects' `cache_control`; the array itself when none has one. */
function stripList(list: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(list) || !list.some((p) => isObject(p) && 'cache_control' in p)) return list;
  return list.map((p) => {
    if (!isObject(p) || !('cache_control' in p)) return p;
    const { cache_control: _c, ...rest } = p;
    return rest;
  });
}

/** One message without the client-only fields; the message itself when it has none. */
function stripMessage(m: JsonValue): JsonValue {
  if (!isObject(m)) return m;
  const content = stripList(m.content);
  const calls = stripList(m.tool_calls);
  const toolName = m.role === 'tool' && 'name' in m;
  if (!('cache_control' in m) && content === m.content && calls === m.tool_calls && !toolName) return m;
  const out: JsonObject = {};
  for (const key in m) {
    if (key === 'cache_control' || (toolName && key === 'name')) continue;
    out[key] = key === 'content' ? content! : key === 'tool_calls' ? calls! : m[key]!;
  }
  return out;
}

/** The messages without the client-only fields above; the input array itself when none has them. */
export function withoutClientFields(messages: JsonValue | undefined): JsonValue | undefined {
  if (!Array.isArray(messages)) return messages;
  let out: JsonValue[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = stripMessage(messages[i]!);
    if (m === messages[i]) continue;
    out ??= messages.slice();
    out[i] = m;
  }
  return out ?? messages;
}
