// Chat Completions `tools`, `tool_choice`, `parallel_tool_calls` and `response_format`. Tool
// `parameters` and `json_schema.schema` are open JSON Schema objects, kept as sent.
import type { JsonObject, JsonValue } from '../../chunks.js';
import { invalid } from '../../errors.js';
import { arr, bool, fields, jsonBytes, kind, obj, oneOf, rejectUnknown, shorten, str } from '../../validate/checks.js';
import type { ChatScan } from './validate-messages.js';
import { given } from './validate-params.js';

const TOOL = fields('type', 'function');
const FUNCTION = fields('name', 'description', 'parameters', 'strict');
const TOOL_CHOICE = fields('type', 'function');
const TOOL_CHOICE_FUNCTION = fields('name');
const RESPONSE_FORMAT = fields('type', 'json_schema');
const JSON_SCHEMA = fields('name', 'description', 'schema', 'strict');
/** OpenAI's rule for function and schema names */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function name(v: JsonValue | undefined, path: string): string {
  const value = str(v, path, 1);
  if (!NAME.test(value)) throw invalid(path, `must be 1 to 64 letters, digits, underscores or dashes, got "${shorten(value)}"`);
  return value;
}

/** `tools`: function tools only; returns the set of tool names. */
export function validateTools(v: JsonValue, scan: ChatScan): Set<string> {
  const list = arr(v, 'tools');
  const names = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const path = `tools[${i}]`;
    const tool = obj(list[i], path);
    if (tool.type !== 'function') {
      throw invalid(`${path}.type`, `only function tools are supported (type "function"), got ${typeof tool.type === 'string' ? `"${shorten(tool.type)}"` : kind(tool.type)}`);
    }
    rejectUnknown(tool, TOOL, path);
    const fn = obj(tool.function, `${path}.function`);
    rejectUnknown(fn, FUNCTION, `${path}.function`);
    const toolName = name(fn.name, `${path}.function.name`);
    if (names.has(toolName)) throw invalid(`${path}.function.name`, `"${toolName}" is already the name of another tool; tool names must be unique`);
    names.add(toolName);
    if (given(fn.description)) str(fn.description, `${path}.function.description`);
    if (given(fn.parameters)) obj(fn.parameters, `${path}.function.parameters`);
    if (given(fn.strict)) bool(fn.strict, `${path}.function.strict`); // accepted, not enforced
    scan.bytes += jsonBytes(fn);
  }
  return names;
}

/** `tool_choice`: `auto`, `none`, `required` or `{type: "function", function: {name}}` naming a supplied tool. */
export function validateToolChoice(v: JsonValue, names: ReadonlySet<string>): void {
  if (typeof v === 'string') {
    const choice = oneOf(v, 'tool_choice', ['auto', 'none', 'required']);
    if (choice === 'required' && names.size === 0) throw invalid('tool_choice', '"required" needs at least one tool in "tools"');
    return;
  }
  const choice = obj(v, 'tool_choice');
  rejectUnknown(choice, TOOL_CHOICE, 'tool_choice');
  oneOf(choice.type, 'tool_choice.type', ['function']);
  const fn = obj(choice.function, 'tool_choice.function');
  rejectUnknown(fn, TOOL_CHOICE_FUNCTION, 'tool_choice.function');
  const wanted = str(fn.name, 'tool_choice.function.name', 1);
  if (!names.has(wanted)) throw invalid('tool_choice.function.name', `"${shorten(wanted)}" is not the name of a tool in "tools"`);
}

/** `response_format`: text, json_object, or json_schema with a name and a schema object. */
export function validateResponseFormat(v: JsonValue, scan: ChatScan): void {
  const format = obj(v, 'response_format');
  rejectUnknown(format, RESPONSE_FORMAT, 'response_format');
  const type = oneOf(format.type, 'response_format.type', ['text', 'json_object', 'json_schema']);
  if (type !== 'json_schema') {
    if (format.json_schema !== undefined) throw invalid('response_format.json_schema', `only allowed with type "json_schema", not "${type}"`);
    return;
  }
  const schema: JsonObject = obj(format.json_schema, 'response_format.json_schema');
  rejectUnknown(schema, JSON_SCHEMA, 'response_format.json_schema');
  name(schema.name, 'response_format.json_schema.name');
  if (given(schema.description)) str(schema.description, 'response_format.json_schema.description');
  obj(schema.schema, 'response_format.json_schema.schema');
  if (given(schema.strict)) bool(schema.strict, 'response_format.json_schema.strict');
  scan.bytes += jsonBytes(schema);
}
