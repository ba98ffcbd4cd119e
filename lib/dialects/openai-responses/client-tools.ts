// The tools a Responses client lets the model call, by the one name an upstream without Responses
// tools (Chat Completions, Anthropic Messages) knows each of them by, and the two-way mapping of
// the client-executed tools that have no counterpart there:
//
// - function and custom tools keep their name; a member of a `namespace` tool (Codex puts its
//   sub-agent tools and every MCP server in one) is called `<namespace>__<name>` (`<namespace><name>`
//   when the namespace already ends in `_`, as Codex's `mcp__server__` does), and its calls go back
//   to the client as the short `name` plus `namespace`: Codex routes a namespaced call only that way.
// - `shell` is the function `shell({commands, timeout_ms?, max_output_length?})`; its call is a
//   `shell_call` item whose `action` is those arguments.
// - `apply_patch` is the function `apply_patch({type, path, diff?})`; its call is an
//   `apply_patch_call` item whose `operation` is those arguments.
// - their outputs (`shell_call_output`, `apply_patch_call_output`) become the text of a tool result.
// - a function / custom tool output without a `call_id` but with a `name` (Codex Desktop delivers
//   scheduled-task and cross-task input that way, FAILURE-MODES F33) answers no call: every
//   upstream gets it as a user message saying which tool it came from.
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../chunks.js';
import { asArray, isObject } from '../../json/values.js';

export type ClientToolKind = 'function' | 'custom' | 'shell' | 'apply_patch';

/** One tool the model may call, as the client declared it. */
export interface ClientTool {
  kind: ClientToolKind;
  /** the name the client knows it by (a namespace member's short name) */
  name: string;
  namespace?: string;
  /** the declaration of a function or custom tool */
  tool?: JsonObject;
}

/** The longest tool name every upstream takes (Chat Completions: 64, of letters, digits, `_`, `-`). */
const MAX_FLAT = 64;

/**
 * The name a translated upstream calls a namespace member by: joined as above, characters Chat and
 * Messages refuse (Responses names may have `.` and `:`) as `_`, and a name over 64 characters cut
 * to 55 plus `_` and 8 hex digits of its hash (the tool list refuses any clash these make).
 */
export function flatName(name: string, namespace: string | undefined): string {
  if (namespace === undefined) return name;
  const joined = (namespace.endsWith('_') ? `${namespace}${name}` : `${namespace}__${name}`).replace(/[^A-Za-z0-9_-]/g, '_');
  if (joined.length <= MAX_FLAT) return joined;
  return `${joined.slice(0, MAX_FLAT - 9)}_${createHash('sha256').update(`${namespace}\0${name}`).digest('hex').slice(0, 8)}`;
}

export const SHELL_FUNCTION: JsonObject = {
  name: 'shell',
  description:
    "Runs shell commands on the user's machine, in order, and returns what each printed (stdout, stderr) and how it exited.",
  parameters: {
    type: 'object',
    properties: {
      commands: { type: 'array', items: { type: 'string' }, description: 'The shell commands to run, in order.' },
      timeout_ms: { type: 'integer', description: 'Optional: the longest the commands may run, in milliseconds.' },
      max_output_length: { type: 'integer', description: 'Optional: the most characters of output to return.' },
    },
    required: ['commands'],
  },
};

export const APPLY_PATCH_FUNCTION: JsonObject = {
  name: 'apply_patch',
  description:
    'Creates, updates or deletes one file. For create_file, `diff` is the whole new content with every line prefixed by "+"; ' +
    'for update_file, `diff` holds the changes as hunks starting with "@@" whose lines start with " " (context), "-" (removed) or "+" (added); ' +
    'delete_file takes no diff.',
  parameters: {
    type: 'object',
    properties: {
      type: { type: 'string', enum: ['create_file', 'update_file', 'delete_file'] },
      path: { type: 'string', description: 'The file, relative to the working directory.' },
      diff: { type: 'string' },
    },
    required: ['type', 'path'],
  },
};

/** A `shell_call` item's `action`, from the arguments of a call to the `shell` function. */
export function shellAction(args: JsonObject): JsonObject {
  const commands = asArray(args.commands).filter((c): c is string => typeof c === 'string');
  if (commands.length === 0 && typeof args.command === 'string') commands.push(args.command);
  return {
    commands,
    timeout_ms: typeof args.timeout_ms === 'number' ? args.timeout_ms : null,
    max_output_length: typeof args.max_output_length === 'number' ? args.max_output_length : null,
  };
}

const OPERATIONS: ReadonlySet<string> = new Set(['create_file', 'update_file', 'delete_file']);

/** An `apply_patch_call` item's `operation`, from the arguments of a call to the `apply_patch` function. */
export function patchOperation(args: JsonObject): JsonObject {
  const type = typeof args.type === 'string' && OPERATIONS.has(args.type) ? args.type : 'update_file';
  const op: JsonObject = { type, path: typeof args.path === 'string' ? args.path : '' };
  if (type !== 'delete_file') op.diff = typeof args.diff === 'string' ? args.diff : '';
  return op;
}

/** The arguments of the function call that stands for a `shell_call` / `apply_patch_call` history item. */
export function callArguments(item: JsonObject): string {
  const v = item.type === 'shell_call' ? item.action : item.operation;
  if (!isObject(v)) return '{}';
  const out: JsonObject = {};
  for (const key in v) if (v[key] !== null) out[key] = v[key]!;
  return JSON.stringify(out);
}

/** The tool-result text of a `shell_call_output` / `apply_patch_call_output` item. */
export function outputText(item: JsonObject): string {
  if (item.type === 'apply_patch_call_output') {
    const status = typeof item.status === 'string' ? item.status : 'completed';
    return typeof item.output === 'string' && item.output !== '' ? `${status}\n${item.output}` : status;
  }
  if (typeof item.output === 'string') return item.output;
  return asArray(item.output).map(shellChunk).join('\n');
}

function shellChunk(v: JsonValue): string {
  if (!isObject(v)) return '';
  const outcome = isObject(v.outcome) ? v.outcome : {};
  const lines = [outcome.type === 'timeout' ? 'timed out' : `exit code ${typeof outcome.exit_code === 'number' ? outcome.exit_code : '?'}`];
  if (typeof v.stdout === 'string' && v.stdout !== '') lines.push(`stdout:\n${v.stdout}`);
  if (typeof v.stderr === 'string' && v.stderr !== '') lines.push(`stderr:\n${v.stderr}`);
  return lines.join('\n');
}

/** A function / custom tool output that answers no call (no `call_id`, but a `name`: FAILURE-MODES F33). */
export function isStandaloneOutput(item: JsonObject): boolean {
  return (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') && (item.call_id === undefined || item.call_id === null) && typeof item.name === 'string';
}

/** The user-message text a standalone output becomes. */
export function standaloneOutputText(item: JsonObject, output: string): string {
  const tool = typeof item.namespace === 'string' ? `${item.namespace}.${String(item.name)}` : String(item.name);
  return `[Output of the ${tool} tool]\n${output}`;
}
