// The conversation of a validated Messages request as Chat Completions `messages`: top-level
// `system` and inline system turns, user content and tool results, assistant text and tool calls.
//
// Mapping decisions (also in the reply to the lead):
// - Top-level `system` becomes ONE leading system message; inline `role: system` turns stay system
//   messages at their position, their per-turn `output_config` is dropped. Text blocks are kept as
//   separate text parts (order kept, never merged); a single text becomes a plain string. The same
//   rule applies to user and assistant text.
// - Each `tool_result` becomes one `tool` message, emitted before the rest of its user message.
//   Its text is the string content, or its text blocks joined with "\n"; `is_error: true` prefixes
//   "Error: " (Chat has no error flag, the model must still see the failure). `tool_reference`
//   blocks are dropped: on Chat every tool is always declared. Chat tool messages carry text only,
//   so images inside a result move into the user message that follows the tool messages, behind a
//   text part naming the tool call ("Images returned by tool call <id>:").
// - Assistant `thinking` / `redacted_thinking` blocks are dropped: their signatures can only be
//   verified by the Anthropic model that wrote them. The exception is thinking the gateway made from
//   a Chat upstream's `reasoning_content` (CHAT_REASONING_SIGNATURE): it goes back as the assistant
//   message's `reasoning_content`, which thinking-mode Chat models require on tool-call turns. Server-tool blocks (server_tool_use,
//   mcp_tool_use and their results) are dropped: their tools cannot run on a Chat deployment. An
//   assistant turn left with nothing is dropped. Citations on text are dropped.
// - `cache_control` anywhere is dropped.
import type { JsonObject, JsonValue } from '../chunks.js';
import { isChatReasoningSignature } from './reasoning-state.js';
import {
  asArray, asString, isObject, toDataUri, toolImagesNote, toolResultContent,
} from './tables.js';

/** Chat `messages` for a Messages body (validated: roles and block types are known). */
export function chatMessages(body: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  if (body.system !== undefined) out.push({ role: 'system', content: textContent(body.system) });
  for (const m of asArray(body.messages)) {
    if (!isObject(m)) continue;
    switch (m.role) {
      case 'system':
        out.push({ role: 'system', content: textContent(m.content) });
        break;
      case 'user':
        userTurn(m.content, out);
        break;
      case 'assistant': {
        const turn = assistantTurn(m.content);
        if (turn !== undefined) out.push(turn);
        break;
      }
    }
  }
  return out;
}

/** A single text part as a plain string; several parts (or any non-text part) as an array. */
function partsContent(parts: JsonObject[]): JsonValue {
  const only = parts.length === 1 ? parts[0] : undefined;
  if (only !== undefined && only.type === 'text') return only.text ?? '';
  return parts;
}

function textPart(text: string): JsonObject {
  return { type: 'text', text };
}

/** Content made only of text: a string stays a string, text blocks become text parts. */
function textContent(v: JsonValue | undefined): JsonValue {
  if (typeof v === 'string') return v;
  const parts: JsonObject[] = [];
  for (const b of asArray(v)) if (isObject(b) && b.type === 'text') parts.push(textPart(asString(b.text) ?? ''));
  return partsContent(parts);
}

function imagePart(block: JsonObject): JsonObject | undefined {
  const src = block.source;
  if (!isObject(src)) return undefined;
  if (src.type === 'base64') {
    return { type: 'image_url', image_url: { url: toDataUri(asString(src.media_type) ?? '', asString(src.data) ?? '') } };
  }
  if (src.type === 'url') return { type: 'image_url', image_url: { url: asString(src.url) ?? '' } };
  return undefined;
}

function userTurn(content: JsonValue | undefined, out: JsonObject[]): void {
  if (typeof content === 'string') {
    out.push({ role: 'user', content });
    return;
  }
  const moved: JsonObject[] = [];
  const parts: JsonObject[] = [];
  for (const b of asArray(content)) {
    if (!isObject(b)) continue;
    if (b.type === 'text') parts.push(textPart(asString(b.text) ?? ''));
    else if (b.type === 'image') {
      const part = imagePart(b);
      if (part !== undefined) parts.push(part);
    } else if (b.type === 'tool_result') {
      out.push(toolMessage(b, moved));
    }
  }
  const all = [...moved, ...parts];
  if (all.length > 0) out.push({ role: 'user', content: partsContent(all) });
}

/** One `tool` message for a `tool_result`; its images are appended to `moved` (with a note). */
function toolMessage(block: JsonObject, moved: JsonObject[]): JsonObject {
  const { id, text, images } = toolResultContent(block);
  const parts = images.map(imagePart).filter((p): p is JsonObject => p !== undefined);
  if (parts.length > 0) moved.push(textPart(toolImagesNote(id)), ...parts);
  return { role: 'tool', tool_call_id: id, content: text };
}

function assistantTurn(content: JsonValue | undefined): JsonObject | undefined {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: JsonObject[] = [];
  const calls: JsonObject[] = [];
  let reasoning = '';
  for (const b of asArray(content)) {
    if (!isObject(b)) continue;
    if (b.type === 'thinking' && isChatReasoningSignature(b.signature)) reasoning += asString(b.thinking) ?? '';
    else if (b.type === 'text') texts.push(textPart(asString(b.text) ?? ''));
    else if (b.type === 'tool_use') {
      const input = b.input === undefined ? {} : b.input;
      calls.push({
        id: asString(b.id) ?? '',
        type: 'function',
        function: { name: asString(b.name) ?? '', arguments: JSON.stringify(input) },
      });
    }
    // thinking, redacted_thinking and server-tool blocks: dropped (see the header)
  }
  if (texts.length === 0 && calls.length === 0) return undefined;
  const turn: JsonObject = { role: 'assistant', content: texts.length > 0 ? partsContent(texts) : null };
  if (reasoning !== '') turn.reasoning_content = reasoning;
  if (calls.length > 0) turn.tool_calls = calls;
  return turn;
}
