// The conversation of a validated Chat Completions request as Responses `instructions` and `input`.
//
// Mapping decisions (also in the reply to the lead):
// - `system` / `developer` messages before the first other message → `instructions` (their texts
//   joined by "\n\n"); later ones → `{type: "message", role, content}` items at their position,
//   keeping the role (a string stays a string, text parts become `input_text`).
// - User messages: a string stays a string; text → `input_text`, `image_url` → `input_image`
//   (`detail` kept, default "auto"); audio parts → 400 capability_rejected (Responses takes no
//   audio input).
// - Assistant messages: first the `reasoning_details` entries that carry Responses state (an
//   `anthropic-claude-v1` `reasoning.text` entry whose signature is `oai-rs:`) → the `reasoning`
//   items they came from, byte-identical; other entries (Anthropic thinking, other vendors) are
//   skipped, the plain `reasoning` string is dropped. Then the text (`content` string or parts →
//   `output_text`; a `refusal` part, or the `refusal` field of a turn without content →
//   `{type: "refusal", refusal}`) as one assistant message item, then each tool call as a
//   `function_call` item whose `arguments` string is sent as the client sent it (an empty one as
//   "{}"). A turn left with nothing is dropped.
// - Tool messages → `function_call_output` `{call_id, output}` (text parts joined by "\n").
import type { JsonObject, JsonValue } from '../chunks.js';
import { capabilityRejected } from '../errors.js';
import { ANTHROPIC_REASONING_FORMAT } from './reasoning-details.js';
import { asArray, asString, isObject, TOOL_TEXT_SEPARATOR } from './tables.js';
import { reasoningInputItem } from './reasoning-state.js';
import {
  assistantMessage, functionCall, inputImage, inputText, INSTRUCTIONS_SEPARATOR, outputText, type ResponsesInput,
} from '../dialects/openai-responses/request-common.js';

/** `modelId` names the served model in capability errors. */
export function chatInput(list: readonly JsonValue[], modelId: string): ResponsesInput {
  const system: string[] = [];
  const input: JsonObject[] = [];
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    if (!isObject(m)) continue;
    const path = `messages[${i}]`;
    switch (m.role) {
      case 'system':
      case 'developer':
        if (input.length === 0) system.push(...texts(m.content));
        else input.push({ type: 'message', role: m.role, content: typeof m.content === 'string' ? m.content : texts(m.content).map(inputText) });
        break;
      case 'user':
        input.push({ type: 'message', role: 'user', content: userContent(m.content, path, modelId) });
        break;
      case 'assistant':
        assistantItems(m, input);
        break;
      case 'tool':
        input.push({ type: 'function_call_output', call_id: asString(m.tool_call_id) ?? '', output: texts(m.content).join(TOOL_TEXT_SEPARATOR) });
        break;
    }
  }
  return { instructions: system.length > 0 ? system.join(INSTRUCTIONS_SEPARATOR) : undefined, input };
}

/** The texts of a string or of text parts. */
function texts(content: JsonValue | undefined): string[] {
  if (typeof content === 'string') return [content];
  const out: string[] = [];
  for (const p of asArray(content)) if (isObject(p) && typeof p.text === 'string') out.push(p.text);
  return out;
}

function userContent(content: JsonValue | undefined, path: string, modelId: string): JsonValue {
  if (typeof content === 'string') return content;
  const parts = asArray(content);
  const out: JsonObject[] = [];
  for (let j = 0; j < parts.length; j++) {
    const p = parts[j];
    if (!isObject(p)) continue;
    if (p.type === 'text') out.push(inputText(asString(p.text) ?? ''));
    else if (p.type === 'image_url') {
      const image = p.image_url;
      const url = typeof image === 'string' ? image : isObject(image) ? asString(image.url) ?? '' : '';
      const detail = isObject(image) ? asString(image.detail) : undefined;
      out.push(inputImage(url, detail));
    } else if (p.type === 'input_audio') {
      throw capabilityRejected(
        `${path}.content[${j}]`,
        `audio input cannot be sent to the served model ${modelId}: the Responses API takes no audio. ` +
          `Remove the audio part, or pick a model whose input includes audio. The API that serves a model is \`models[].deployments[].api\` in the gateway config.`,
      );
    }
  }
  return out;
}

/** The `reasoning` input item a detail carries, or null for any other detail. */
function reasoningItem(detail: JsonValue): JsonObject | null {
  if (!isObject(detail) || detail.format !== ANTHROPIC_REASONING_FORMAT || detail.type !== 'reasoning.text') return null;
  if (typeof detail.text !== 'string' || typeof detail.signature !== 'string') return null;
  return reasoningInputItem(detail.text, detail.signature);
}

function assistantItems(m: JsonObject, out: JsonObject[]): void {
  for (const d of asArray(m.reasoning_details)) {
    const item = reasoningItem(d);
    if (item !== null) out.push(item);
  }
  const parts: JsonObject[] = [];
  if (typeof m.content === 'string') {
    if (m.content !== '') parts.push(outputText(m.content));
  } else if (Array.isArray(m.content)) {
    for (const p of m.content) {
      if (!isObject(p)) continue;
      if (p.type === 'refusal') parts.push({ type: 'refusal', refusal: asString(p.refusal) ?? '' });
      else if (typeof p.text === 'string') parts.push(outputText(p.text));
    }
  } else if (typeof m.refusal === 'string' && m.refusal !== '') {
    parts.push({ type: 'refusal', refusal: m.refusal });
  }
  if (parts.length > 0) out.push(assistantMessage(parts));
  for (const c of asArray(m.tool_calls)) {
    if (!isObject(c)) continue;
    const fn = isObject(c.function) ? c.function : {};
    const args = asString(fn.arguments) ?? '';
    out.push(functionCall(asString(c.id) ?? '', asString(fn.name) ?? '', args === '' ? '{}' : args));
  }
}
