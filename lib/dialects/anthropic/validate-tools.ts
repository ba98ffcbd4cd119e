// `tools` (custom tools; hosted ones are delegated) and `tool_choice`.
import { invalid } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../chunks.js';
import {
  HOSTED_TOOL_TYPES, CODE_EXECUTION_COMPANIONS, standaloneCodeExecution, unsupportedToolType, validateHostedTool,
  type HostedToolOptions,
} from './validate-hosted-tools.js';
import {
  arr, bool, cacheControl, fields, jsonBytes, obj, oneOf, rejectUnknown, shorten, str, type Scan,
} from './validate-util.js';

const CUSTOM_TOOL = fields(
  'type', 'name', 'description', 'input_schema', 'strict', 'cache_control', 'defer_loading', 'eager_input_streaming',
  'input_examples', 'allowed_callers',
);
const TOOL_CHOICE = fields('type', 'disable_parallel_tool_use');
const TOOL_CHOICE_NAMED = fields('type', 'name', 'disable_parallel_tool_use');
/** Anthropic's tool name rule */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

export interface ToolsResult {
  count: number;
  /** sum of web search `max_uses` */
  hostedToolUses: number;
  /** every tool is a hosted web search (decisions §11: gateway-auto routes to a `webSearch` model) */
  searchOnly: boolean;
}

/** `tools`: fills scan.toolNames (unique names) and counts bytes. */
export function validateTools(v: JsonValue, scan: Scan, opts: HostedToolOptions): ToolsResult {
  const tools = arr(v, 'tools');
  let hostedToolUses = 0;
  let codeExecution = -1;
  let companion = false;
  let searches = 0;
  for (let i = 0; i < tools.length; i++) {
    const path = `tools[${i}]`;
    const t = obj(tools[i], path);
    const type = t.type;
    if (type === undefined || type === 'custom') {
      customTool(t, path);
    } else {
      const ty = str(type, `${path}.type`, 1);
      const family = HOSTED_TOOL_TYPES.get(ty);
      if (family === undefined) unsupportedToolType(ty, path);
      hostedToolUses += validateHostedTool(t, path, family, opts);
      if (family === 'web_search') searches++;
      if (family === 'code_execution' && codeExecution === -1) codeExecution = i;
      if (CODE_EXECUTION_COMPANIONS.has(ty)) companion = true;
    }
    if (typeof t.name === 'string') {
      const first = scan.toolNames.get(t.name);
      if (first !== undefined) {
        throw invalid(`${path}.name`, `duplicate tool name "${shorten(t.name)}" (already used by ${first}); tool names must be unique`);
      }
      scan.toolNames.set(t.name, path);
    }
  }
  if (codeExecution !== -1 && !companion) standaloneCodeExecution(`tools[${codeExecution}]`);
  scan.bytes += jsonBytes(tools);
  return { count: tools.length, hostedToolUses, searchOnly: searches > 0 && searches === tools.length };
}

function customTool(t: JsonObject, path: string): void {
  rejectUnknown(t, CUSTOM_TOOL, path);
  const name = str(t.name, `${path}.name`, 1);
  if (!TOOL_NAME.test(name)) throw invalid(`${path}.name`, 'must be 1 to 128 characters from a-z, A-Z, 0-9, "_" and "-"');
  if (t.description !== undefined) str(t.description, `${path}.description`);
  const schema = obj(t.input_schema, `${path}.input_schema`);
  if (schema.type !== undefined && schema.type !== 'object') {
    throw invalid(`${path}.input_schema.type`, 'must be "object": a tool input is a JSON object');
  }
  if (t.strict !== undefined) bool(t.strict, `${path}.strict`);
  cacheControl(t.cache_control, `${path}.cache_control`);
  if (t.defer_loading !== undefined) bool(t.defer_loading, `${path}.defer_loading`);
  if (t.eager_input_streaming !== undefined) bool(t.eager_input_streaming, `${path}.eager_input_streaming`);
  if (t.input_examples !== undefined) {
    const list = arr(t.input_examples, `${path}.input_examples`);
    for (let i = 0; i < list.length; i++) obj(list[i], `${path}.input_examples[${i}]`);
  }
  if (t.allowed_callers !== undefined) {
    const list = arr(t.allowed_callers, `${path}.allowed_callers`);
    for (let i = 0; i < list.length; i++) str(list[i], `${path}.allowed_callers[${i}]`, 1);
  }
}

/** `tool_choice`; returns its type. `toolCount` is 0 when `tools` is absent. */
export function validateToolChoice(v: JsonValue, toolCount: number, scan: Scan): string {
  const c = obj(v, 'tool_choice');
  const type = oneOf(c.type, 'tool_choice.type', ['auto', 'any', 'none', 'tool']);
  rejectUnknown(c, type === 'tool' ? TOOL_CHOICE_NAMED : TOOL_CHOICE, 'tool_choice');
  if (c.disable_parallel_tool_use !== undefined) bool(c.disable_parallel_tool_use, 'tool_choice.disable_parallel_tool_use');
  if (type === 'any' && toolCount === 0) {
    throw invalid('tool_choice.type', '"any" needs at least one tool in tools. Add tools or use {"type": "auto"}');
  }
  if (type === 'tool') {
    const name = str(c.name, 'tool_choice.name', 1);
    if (!scan.toolNames.has(name)) throw invalid('tool_choice.name', `"${shorten(name)}" names no tool of the request's tools`);
  }
  return type;
}
