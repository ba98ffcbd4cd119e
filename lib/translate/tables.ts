// The mapping tables shared by the request translators between the Messages and Chat Completions
// dialects (messages-to-chat.ts, chat-to-messages.ts): effort names, the thinking budget ⇄ effort
// rule, tool_choice names, image data URIs, and the few fixed strings the translators write. Each
// table is written once here, so the two directions cannot drift apart.
import type { JsonObject, JsonValue } from '../chunks.js';
import { capabilityRejected } from '../errors.js';

/** Narrowing helpers for validated wire bodies (values are JsonValue, never `any`). */
export { asArray, asString, isObject } from '../json/values.js';

// ---- effort ---------------------------------------------------------------------------------

/** Chat `reasoning_effort` values an upstream Chat deployment is sent. */
export type ChatEffort = 'minimal' | 'low' | 'medium' | 'high';
/** `output_config.effort` values sent to an Anthropic deployment. */
export type AnthropicEffort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/**
 * Messages `output_config.effort` → Chat `reasoning_effort`. The Chat scale tops out at `high`, so
 * `xhigh` and `max` become `high`; `minimal` exists on both sides.
 */
export const EFFORT_TO_CHAT: Readonly<Record<string, ChatEffort>> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
};

/**
 * Chat effort (`reasoning.effort` / `reasoning_effort`) → Messages `output_config.effort`. `none` is
 * absent on purpose: it means "no thinking". `minimal` has no Anthropic counterpart; the nearest
 * accepted value is `low`.
 */
export const EFFORT_TO_ANTHROPIC: Readonly<Record<string, AnthropicEffort>> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'max',
};

/** Adaptive thinking without an explicit effort runs at Anthropic's default effort. */
export const DEFAULT_EFFORT = 'high' satisfies ChatEffort & AnthropicEffort;

/** A manual thinking budget at or above this many tokens counts as `high` effort, below as `medium`. */
export const HIGH_EFFORT_BUDGET = 16000;

export function effortForBudget(budget: number): 'high' | 'medium' {
  return budget >= HIGH_EFFORT_BUDGET ? 'high' : 'medium';
}

/** Anthropic's smallest manual thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

// ---- tool choice ----------------------------------------------------------------------------

/** Messages `tool_choice.type` (not `tool`) ⇄ Chat `tool_choice` string. */
export const TOOL_CHOICE_TO_CHAT: Readonly<Record<string, 'auto' | 'required' | 'none'>> = {
  auto: 'auto',
  any: 'required',
  none: 'none',
};

export const TOOL_CHOICE_TO_ANTHROPIC: Readonly<Record<string, 'auto' | 'any' | 'none'>> = {
  auto: 'auto',
  required: 'any',
  none: 'none',
};

// ---- images ---------------------------------------------------------------------------------

/** The media types an Anthropic base64 image source accepts. */
export const IMAGE_MEDIA_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

/** Common spellings of those media types, normalised before the check. */
const MEDIA_TYPE_ALIASES: Readonly<Record<string, string>> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

export function toDataUri(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/**
 * `data:<media type>[;param…];base64,<data>` → its parts (media type lower-cased, aliases
 * normalised). Returns a string explaining the problem when the URI is not a base64 data URI.
 */
export function parseDataUri(uri: string): { mediaType: string; data: string } | string {
  const comma = uri.indexOf(',');
  if (!uri.startsWith('data:') || comma === -1) return 'is not a valid data URI (expected data:<media type>;base64,<data>)';
  const params = uri.slice(5, comma).split(';').map((p) => p.trim().toLowerCase());
  if (!params.includes('base64')) return 'must be a base64 data URI (data:<media type>;base64,<data>)';
  const raw = params[0] ?? '';
  const mediaType = MEDIA_TYPE_ALIASES[raw] ?? raw;
  const data = uri.slice(comma + 1);
  if (data === '') return 'has no image data after the comma';
  return { mediaType: sniffImageType(data) ?? mediaType, data };
}

/** Leading base64 characters of each image format Claude takes (the first bytes of the file). */
const IMAGE_SIGNATURES: readonly (readonly [string, string])[] = [
  ['/9j/', 'image/jpeg'], // FF D8 FF
  ['iVBORw0KGgo', 'image/png'], // 89 50 4E 47 0D 0A 1A 0A
  ['R0lGOD', 'image/gif'], // GIF87a / GIF89a
];

/**
 * The image format the bytes say, when they say one: Claude checks the bytes against the declared
 * type and refuses a mismatch ("the image appears to be a image/jpeg image", FAILURE-MODES F51),
 * which clients produce often (a screenshot tool labelling every file PNG). WebP: "RIFF....WEBP".
 */
export function sniffImageType(base64: string): string | undefined {
  for (const [prefix, type] of IMAGE_SIGNATURES) if (base64.startsWith(prefix)) return type;
  if (base64.startsWith('UklGR') && Buffer.from(base64.slice(0, 16), 'base64').subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

// ---- fixed texts ----------------------------------------------------------------------------

/** Prefix of a Chat `tool` message whose Messages `tool_result` had `is_error: true`. */
export const TOOL_ERROR_PREFIX = 'Error: ';

/** Joins the text parts of a tool result (both directions). */
export const TOOL_TEXT_SEPARATOR = '\n';

/** Final system text block that stands in for Chat `response_format: {type: "json_object"}`. */
export const JSON_OBJECT_INSTRUCTION = 'Respond with a single JSON object and nothing else.';

/**
 * A Messages `tool_result` for an OpenAI-style API, which takes only text in a tool output: the text
 * blocks joined (prefixed when `is_error`), and the image blocks, which the caller moves into the
 * following user turn behind `toolImagesNote`.
 */
export function toolResultContent(block: JsonObject): { id: string; text: string; images: JsonObject[] } {
  const id = typeof block.tool_use_id === 'string' ? block.tool_use_id : '';
  const content = block.content;
  let text = '';
  const images: JsonObject[] = [];
  if (typeof content === 'string') {
    text = content;
  } else if (Array.isArray(content)) {
    const texts: string[] = [];
    for (const c of content) {
      if (typeof c !== 'object' || c === null || Array.isArray(c)) continue;
      if (c.type === 'text') texts.push(typeof c.text === 'string' ? c.text : '');
      else if (c.type === 'image') images.push(c);
    }
    text = texts.join(TOOL_TEXT_SEPARATOR);
  }
  if (block.is_error === true) text = TOOL_ERROR_PREFIX + text;
  return { id, text, images };
}

/** Text part that introduces the images of a tool result, moved into a user message on Chat. */
export function toolImagesNote(toolUseId: string): string {
  return `Images returned by tool call ${toolUseId}:`;
}

/** the longest function name OpenAI's Chat Completions and Responses APIs accept */
export const OPENAI_TOOL_NAME_MAX = 64;

/** A Messages custom tool as a plain function: what every OpenAI-style API declares. */
export interface FunctionSpec {
  name: string;
  description?: string;
  parameters: JsonObject;
}

/**
 * The custom tools of a Messages request for a non-Anthropic deployment. A hosted Anthropic tool
 * (anything with a dated `type`) cannot run there: refused with guidance.
 */
export function messagesFunctionTools(v: JsonValue | undefined, modelId: string): FunctionSpec[] {
  const list = Array.isArray(v) ? v : [];
  const out: FunctionSpec[] = [];
  for (let i = 0; i < list.length; i++) {
    const t = list[i];
    if (typeof t !== 'object' || t === null || Array.isArray(t)) continue;
    if (t.type !== undefined && t.type !== 'custom') {
      throw capabilityRejected(
        `tools[${i}]`,
        `"${String(t.type)}" is an Anthropic server tool; the served model ${modelId} cannot run it. ` + 'Remove the tool or pin a Claude model.',
      );
    }
    const name = typeof t.name === 'string' ? t.name : '';
    // Anthropic takes names up to 128 characters, OpenAI-style APIs up to 64: Claude Code's MCP tool
    // names often fall between (FAILURE-MODES F38). Refused here, at its path, rather than as the
    // upstream's 400 on every turn.
    if (name.length > OPENAI_TOOL_NAME_MAX) {
      throw capabilityRejected(
        `tools[${i}].name`,
        `is ${name.length} characters; the served model ${modelId} takes tool names of at most ${OPENAI_TOOL_NAME_MAX}. Shorten the name or pin a Claude model.`,
      );
    }
    const spec: FunctionSpec = {
      name,
      parameters: typeof t.input_schema === 'object' && t.input_schema !== null && !Array.isArray(t.input_schema) ? objectSchema(t.input_schema) : { type: 'object', properties: {} },
    };
    if (typeof t.description === 'string') spec.description = t.description;
    out.push(spec);
  }
  return out;
}

/**
 * A no-argument tool's schema as OpenAI accepts it: MCP servers declare `{"type": "object"}`, which
 * Anthropic takes but OpenAI refuses ("object schema missing properties", FAILURE-MODES F36).
 */
export function objectSchema(schema: JsonObject): JsonObject {
  return schema.type === 'object' && schema.properties === undefined ? { ...schema, properties: {} } : schema;
}

/**
 * A tool-call id as Anthropic accepts it (`^[a-zA-Z0-9_-]+$`). Other upstreams mint ids such as
 * `functions.Bash:0` (Kimi); replayed to Claude they fail every later turn (FAILURE-MODES F39). The
 * mapping is a pure function, so a call and its result always map to the same id.
 */
export function anthropicToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}
