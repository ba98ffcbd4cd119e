// The conversation of a validated Chat Completions request as Messages `system` and `messages`.
//
// Mapping decisions (also in the reply to the lead):
// - `system` / `developer` messages before the first other message → top-level `system` text
//   blocks (one per string or text part, order kept); later ones → inline `role: system` turns at
//   their position (a string stays a string).
// - Assistant turns: Anthropic-format `reasoning_details` entries first, as thinking /
//   redacted_thinking blocks byte-identical to what the model produced; entries of another format
//   are skipped (no other vendor's reasoning can be verified), a malformed Anthropic entry is a 400.
//   Then the text (a `refusal` part, or the `refusal` field of a turn without content, counts as
//   text), then `tool_calls` as `tool_use`. The plain `reasoning` string is dropped (it has no
//   signature). A turn left with nothing is dropped. A plain string answer without reasoning or
//   tool calls stays a string.
// - Consecutive `tool` messages → one user turn of `tool_result` blocks (text parts joined with
//   "\n"); consecutive turns of the same role (user after tool results, assistant after assistant)
//   are merged, because Anthropic requires user and assistant turns to alternate. Inline system
//   turns are never merged.
// - Image parts: a base64 data URI → base64 source ("image/jpg" is read as image/jpeg); an http(s)
//   URL → url source; `detail` is dropped. Audio parts: 400 capability_rejected.
// - `cache_control` (the client field of openai-chat/client-fields.ts) on a content part or a tool
//   call → on the block made from it; on a message → on the last block made from that message (a
//   string content becomes one text block to carry it). Anthropic takes at most 4 breakpoints in a
//   request: beyond that the earliest are dropped (a later breakpoint's prefix covers an earlier one).
import type { JsonObject, JsonValue } from '../chunks.js';
import { capabilityRejected, invalid } from '../errors.js';
import { JsonSyntaxError, parseStrict } from '../json/strict-parse.js';
import { detailToAnthropicBlock } from './reasoning-details.js';
import { anthropicToolId, asArray, asString, IMAGE_MEDIA_TYPES, isObject, parseDataUri, TOOL_TEXT_SEPARATOR } from './tables.js';

export interface AnthropicTurns {
  system: JsonObject[];
  messages: JsonObject[];
}

/** `modelId` names the served model in capability errors. */
export function anthropicTurns(list: readonly JsonValue[], modelId: string): AnthropicTurns {
  const system: JsonObject[] = [];
  const messages: JsonObject[] = [];
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    if (!isObject(m)) continue;
    const path = `messages[${i}]`;
    const cc = m.cache_control;
    switch (m.role) {
      case 'system':
      case 'developer':
        if (messages.length === 0) system.push(...markLast(textBlocks(m.content), cc));
        else messages.push({ role: 'system', content: typeof m.content === 'string' && !given(cc) ? m.content : markLast(textBlocks(m.content), cc) });
        break;
      case 'user':
        append(messages, 'user', markContent(userContent(m.content, path, modelId), cc));
        break;
      case 'assistant': {
        const content = assistantContent(m, path);
        if (content !== undefined) append(messages, 'assistant', markContent(content, cc));
        break;
      }
      case 'tool':
        append(messages, 'user', [toolResult(m)]);
        break;
    }
  }
  capBreakpoints([...system, ...messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter(isObject) : []))]);
  return { system, messages };
}

const MAX_BREAKPOINTS = 4;

const given = (v: JsonValue | undefined): boolean => v !== undefined && v !== null;

/** `block` with the part's `cache_control`, when it has one. */
function marked(block: JsonObject, cc: JsonValue | undefined): JsonObject {
  return given(cc) ? { ...block, cache_control: cc! } : block;
}

/** The blocks, the last one carrying a message's `cache_control`. */
function markLast(blocks: JsonObject[], cc: JsonValue | undefined): JsonObject[] {
  if (given(cc) && blocks.length > 0) blocks[blocks.length - 1] = marked(blocks[blocks.length - 1]!, cc);
  return blocks;
}

/** A turn's content with a message's `cache_control` on its last block (a string becomes a block). */
function markContent(content: JsonValue, cc: JsonValue | undefined): JsonValue {
  if (!given(cc)) return content;
  return markLast(typeof content === 'string' ? asBlocks(content) as JsonObject[] : asArray(content).filter(isObject), cc);
}

/** Keeps the last MAX_BREAKPOINTS `cache_control` marks of the request's blocks, in order. */
function capBreakpoints(blocks: JsonObject[]): void {
  const marks = blocks.filter((b) => given(b.cache_control));
  for (const b of marks.slice(0, Math.max(0, marks.length - MAX_BREAKPOINTS))) delete b.cache_control;
}

function textBlock(text: string): JsonObject {
  return { type: 'text', text };
}

function asBlocks(content: JsonValue | undefined): JsonValue[] {
  if (typeof content === 'string') return content === '' ? [] : [textBlock(content)];
  return asArray(content);
}

/** Adds a turn, merging it into the previous one when both are user or both are assistant turns. */
function append(messages: JsonObject[], role: 'user' | 'assistant', content: JsonValue): void {
  const last = messages[messages.length - 1];
  if (last !== undefined && last.role === role) {
    last.content = [...asBlocks(last.content), ...asBlocks(content)];
    return;
  }
  messages.push({ role, content });
}

/** Text of a system, developer or tool message: one block per string or text part. */
function textBlocks(content: JsonValue | undefined): JsonObject[] {
  if (typeof content === 'string') return [textBlock(content)];
  const out: JsonObject[] = [];
  for (const p of asArray(content)) if (isObject(p) && typeof p.text === 'string') out.push(marked(textBlock(p.text), p.cache_control));
  return out;
}

function userContent(content: JsonValue | undefined, path: string, modelId: string): JsonValue {
  if (typeof content === 'string') return content;
  const parts = asArray(content);
  const out: JsonObject[] = [];
  for (let j = 0; j < parts.length; j++) {
    const p = parts[j];
    if (!isObject(p)) continue;
    const pp = `${path}.content[${j}]`;
    switch (p.type) {
      case 'text':
        out.push(marked(textBlock(asString(p.text) ?? ''), p.cache_control));
        break;
      case 'image_url':
        out.push(marked(imageBlock(p.image_url, `${pp}.image_url.url`), p.cache_control));
        break;
      case 'input_audio':
        throw capabilityRejected(
          pp,
          `audio input cannot be sent to the served model ${modelId}: Anthropic models take no audio. ` +
            'Remove the audio part, or pick a model whose input includes audio.',
        );
      default:
        throw invalid(`${pp}.type`, `content part type "${String(p.type)}" cannot be sent to the served model ${modelId}`);
    }
  }
  return out;
}

function imageBlock(image: JsonValue | undefined, path: string): JsonObject {
  const url = typeof image === 'string' ? image : isObject(image) ? asString(image.url) ?? '' : '';
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  if (!url.startsWith('data:')) throw invalid(path, 'must be an http(s) URL or a base64 data URI (data:<media type>;base64,<data>)');
  const parsed = parseDataUri(url);
  if (typeof parsed === 'string') throw invalid(path, parsed);
  if (!IMAGE_MEDIA_TYPES.includes(parsed.mediaType)) {
    throw invalid(path, `media type "${parsed.mediaType}" is not supported; send one of ${IMAGE_MEDIA_TYPES.join(', ')}`);
  }
  return { type: 'image', source: { type: 'base64', media_type: parsed.mediaType, data: parsed.data } };
}

function assistantContent(m: JsonObject, path: string): JsonValue | undefined {
  const blocks: JsonObject[] = [];
  const details = asArray(m.reasoning_details);
  for (let k = 0; k < details.length; k++) {
    const d = details[k];
    const block = isObject(d) ? detailToAnthropicBlock(d) : null;
    if (block === null) {
      throw invalid(
        `${path}.reasoning_details[${k}]`,
        'is not a valid reasoning detail: send reasoning_details back exactly as the gateway returned them',
      );
    }
    if (block !== 'skip') blocks.push(block);
  }
  const calls = asArray(m.tool_calls);
  if (typeof m.content === 'string' && blocks.length === 0 && calls.length === 0) {
    return m.content === '' ? undefined : m.content;
  }
  if (typeof m.content === 'string') {
    if (m.content !== '') blocks.push(textBlock(m.content));
  } else if (!Array.isArray(m.content)) {
    if (typeof m.refusal === 'string' && m.refusal !== '') blocks.push(textBlock(m.refusal));
  } else {
    for (const p of asArray(m.content)) {
      if (!isObject(p)) continue;
      const text = p.type === 'refusal' ? asString(p.refusal) : asString(p.text);
      if (text !== undefined && text !== '') blocks.push(marked(textBlock(text), p.cache_control));
    }
  }
  for (let j = 0; j < calls.length; j++) {
    const c = calls[j];
    if (!isObject(c)) continue;
    const fn = isObject(c.function) ? c.function : {};
    const use = { type: 'tool_use', id: anthropicToolId(asString(c.id) ?? ''), name: asString(fn.name) ?? '', input: toolInput(fn.arguments, `${path}.tool_calls[${j}].function.arguments`) };
    blocks.push(marked(use, c.cache_control));
  }
  return blocks.length > 0 ? blocks : undefined;
}

/** `arguments` JSON string → the tool input object; an empty string is `{}`. */
function toolInput(v: JsonValue | undefined, path: string): JsonObject {
  const text = asString(v) ?? '';
  if (text.trim() === '') return {};
  let value: JsonValue;
  try {
    value = parseStrict(text);
  } catch (err) {
    const reason = err instanceof JsonSyntaxError ? `: ${err.reason}` : '';
    throw invalid(path, `is not valid JSON${reason}. Send the arguments string exactly as the model produced it`);
  }
  if (!isObject(value)) throw invalid(path, 'must be a JSON object (a tool input is an object)');
  return value;
}

/** A tool message → one `tool_result` block, marked when the message or its last text part is. */
function toolResult(m: JsonObject): JsonObject {
  const content = m.content;
  const blocks = typeof content === 'string' ? [] : textBlocks(content);
  const text = typeof content === 'string' ? content : blocks.map((b) => b.text).join(TOOL_TEXT_SEPARATOR);
  const cc = given(m.cache_control) ? m.cache_control : blocks.at(-1)?.cache_control;
  return marked({ type: 'tool_result', tool_use_id: anthropicToolId(asString(m.tool_call_id) ?? ''), content: text }, cc);
}
