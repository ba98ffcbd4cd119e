// The conversation of a validated Messages request as Responses `instructions` and `input` items.
//
// Mapping decisions (also in the reply to the lead):
// - Top-level `system` → `instructions` (a string as is, text blocks joined by "\n\n"); inline
//   `role: system` turns → `{type: "message", role: "system", content}` items at their position
//   (a string stays a string, text blocks become `input_text` parts; their `output_config` is
//   dropped).
// - User turns: a string stays a string; text → `input_text`, image → `input_image` (`image_url`
//   = a data URI for base64 sources, the URL for url sources; `detail: "auto"`). Each
//   `tool_result` → one `function_call_output` `{call_id, output}` item, emitted before the rest
//   of its user turn, its text being the string content or the text blocks joined by "\n"
//   (`is_error: true` prefixes "Error: "); images inside a result move into the user message
//   that follows, behind a note naming the tool call (as on Chat); `tool_reference` blocks are
//   dropped (every tool is always declared).
// - Assistant turns, block order kept: thinking whose signature is an `oai-rs:` state →
//   the `reasoning` item it came from, byte-identical (reasoning-state.ts); consecutive text blocks
//   → one `{type: "message", role: "assistant", content: [{type: "output_text", text}, …]}` item;
//   tool_use → `{type: "function_call", call_id, name, arguments: JSON of the input}`. Thinking
//   signed by Anthropic, redacted_thinking, server-tool blocks and citations are dropped: no other
//   vendor can verify or run them. A plain string answer becomes one assistant message item.
import type { JsonObject, JsonValue } from '../chunks.js';
import {
  asArray, asString, isObject, toDataUri, toolImagesNote, toolResultContent,
} from './tables.js';
import { reasoningInputItem } from './reasoning-state.js';
import {
  assistantMessage, functionCall, inputImage, inputText, INSTRUCTIONS_SEPARATOR, outputText, type ResponsesInput,
} from '../dialects/openai-responses/request-common.js';

export function messagesInput(body: JsonObject): ResponsesInput {
  const input: JsonObject[] = [];
  for (const m of asArray(body.messages)) {
    if (!isObject(m)) continue;
    if (m.role === 'system') input.push({ type: 'message', role: 'system', content: textContent(m.content) });
    else if (m.role === 'user') userItems(m.content, input);
    else if (m.role === 'assistant') assistantItems(m.content, input);
  }
  return { instructions: systemText(body.system), input };
}

function systemText(v: JsonValue | undefined): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  const texts = asArray(v).filter(isObject).map((b) => asString(b.text) ?? '');
  return texts.length > 0 ? texts.join(INSTRUCTIONS_SEPARATOR) : undefined;
}

/** A string stays a string; text blocks become input_text parts. */
function textContent(v: JsonValue | undefined): JsonValue {
  if (typeof v === 'string') return v;
  return asArray(v).filter((b): b is JsonObject => isObject(b) && b.type === 'text').map((b) => inputText(asString(b.text) ?? ''));
}

function imagePart(block: JsonObject): JsonObject | undefined {
  const src = block.source;
  if (!isObject(src)) return undefined;
  if (src.type === 'base64') return inputImage(toDataUri(asString(src.media_type) ?? '', asString(src.data) ?? ''));
  if (src.type === 'url') return inputImage(asString(src.url) ?? '');
  return undefined;
}

function userItems(content: JsonValue | undefined, out: JsonObject[]): void {
  if (typeof content === 'string') {
    out.push({ type: 'message', role: 'user', content });
    return;
  }
  const moved: JsonObject[] = [];
  const parts: JsonObject[] = [];
  for (const b of asArray(content)) {
    if (!isObject(b)) continue;
    if (b.type === 'text') parts.push(inputText(asString(b.text) ?? ''));
    else if (b.type === 'image') {
      const part = imagePart(b);
      if (part !== undefined) parts.push(part);
    } else if (b.type === 'tool_result') out.push(toolOutput(b, moved));
  }
  const all = [...moved, ...parts];
  if (all.length > 0) out.push({ type: 'message', role: 'user', content: all });
}

/** One `function_call_output` for a `tool_result`; its images are appended to `moved` (with a note). */
function toolOutput(block: JsonObject, moved: JsonObject[]): JsonObject {
  const { id, text, images } = toolResultContent(block);
  const parts = images.map(imagePart).filter((p): p is JsonObject => p !== undefined);
  if (parts.length > 0) moved.push(inputText(toolImagesNote(id)), ...parts);
  return { type: 'function_call_output', call_id: id, output: text };
}

function assistantItems(content: JsonValue | undefined, out: JsonObject[]): void {
  if (typeof content === 'string') {
    if (content !== '') out.push(assistantMessage([outputText(content)]));
    return;
  }
  let texts: JsonObject[] = [];
  const flush = (): void => {
    if (texts.length > 0) out.push(assistantMessage(texts));
    texts = [];
  };
  for (const b of asArray(content)) {
    if (!isObject(b)) continue;
    if (b.type === 'text') {
      texts.push(outputText(asString(b.text) ?? ''));
    } else if (b.type === 'tool_use') {
      flush();
      out.push(functionCall(asString(b.id) ?? '', asString(b.name) ?? '', JSON.stringify(b.input ?? {})));
    } else if (b.type === 'thinking') {
      const item = reasoningInputItem(asString(b.thinking) ?? '', asString(b.signature) ?? '');
      if (item === null) continue; // Anthropic's signature: only Anthropic can verify it
      flush();
      out.push(item);
    }
    // redacted_thinking, server-tool blocks: dropped (see the header)
  }
  flush();
}
