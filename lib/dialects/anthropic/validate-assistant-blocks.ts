// Blocks only an assistant message may carry in history: thinking (signed, model-bound), client and
// server tool calls, and the current server-tool result blocks. Result payloads are open JSON: only
// the block type and the ids that tie a result to its call are checked.
import { invalid } from '../../errors.js';
import type { JsonObject } from '../../chunks.js';
import { bool, cacheControl, fields, obj, rejectUnknown, required, shorten, str, typedObject, type Scan } from './validate-util.js';

/** Server-tool result block types accepted in assistant history (spec: advisor, code execution, MCP,
 * text editor, tool search, web fetch and web search results). */
export const SERVER_RESULT_BLOCKS: ReadonlySet<string> = new Set([
  'advisor_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'mcp_tool_result',
  'tool_search_tool_result',
  'web_fetch_tool_result',
  'web_search_tool_result',
]);

export const ASSISTANT_BLOCKS: readonly string[] = [
  'text',
  'compaction',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'server_tool_use',
  'mcp_tool_use',
  ...SERVER_RESULT_BLOCKS,
];

const THINKING = fields('type', 'thinking', 'signature');
const REDACTED = fields('type', 'data');
const TOOL_USE = fields('type', 'id', 'name', 'input', 'cache_control', 'caller');
const MCP_TOOL_USE = fields('type', 'id', 'name', 'server_name', 'input', 'cache_control');
// `caller` and `compaction` blocks are what the provider returns (and the gateway passes on): they
// come back unchanged as history (decisions §10)
const RESULT = fields('type', 'tool_use_id', 'content', 'cache_control', 'caller');
const COMPACTION = fields('type', 'content', 'cache_control');
const MCP_RESULT = fields('type', 'tool_use_id', 'content', 'is_error', 'cache_control');

/**
 * Validates an assistant block other than `text`. Returns false when `type` is not an assistant
 * block type (the caller reports it).
 */
export function assistantBlock(type: string, b: JsonObject, path: string, scan: Scan): boolean {
  switch (type) {
    case 'thinking':
      rejectUnknown(b, THINKING, path);
      str(b.thinking, `${path}.thinking`);
      str(b.signature, `${path}.signature`);
      scan.signedThinking = true;
      return true;
    case 'redacted_thinking':
      rejectUnknown(b, REDACTED, path);
      str(b.data, `${path}.data`, 1);
      scan.signedThinking = true;
      return true;
    case 'tool_use':
      toolCall(b, path, TOOL_USE, scan.toolUseIds);
      return true;
    case 'server_tool_use':
      toolCall(b, path, TOOL_USE, scan.serverToolUseIds);
      return true;
    case 'compaction':
      rejectUnknown(b, COMPACTION, path);
      if (b.content !== null) str(b.content, `${path}.content`);
      cacheControl(b.cache_control, `${path}.cache_control`);
      return true;
    case 'mcp_tool_use':
      toolCall(b, path, MCP_TOOL_USE, scan.serverToolUseIds);
      str(b.server_name, `${path}.server_name`, 1);
      return true;
    default:
      if (!SERVER_RESULT_BLOCKS.has(type)) return false;
      serverResult(type, b, path, scan);
      return true;
  }
}

function toolCall(b: JsonObject, path: string, allowed: ReadonlySet<string>, ids: Set<string>): void {
  rejectUnknown(b, allowed, path);
  const id = str(b.id, `${path}.id`, 1);
  if (ids.has(id)) throw invalid(`${path}.id`, `duplicate id "${shorten(id)}": every tool call of the conversation needs its own id`);
  ids.add(id);
  str(b.name, `${path}.name`, 1);
  obj(b.input, `${path}.input`);
  cacheControl(b.cache_control, `${path}.cache_control`);
  if (b.caller !== undefined) typedObject(b.caller, `${path}.caller`);
}

function serverResult(type: string, b: JsonObject, path: string, scan: Scan): void {
  rejectUnknown(b, type === 'mcp_tool_result' ? MCP_RESULT : RESULT, path);
  const id = str(b.tool_use_id, `${path}.tool_use_id`, 1);
  if (!scan.serverToolUseIds.has(id)) {
    throw invalid(
      `${path}.tool_use_id`,
      `"${shorten(id)}" matches no earlier server_tool_use or mcp_tool_use id; keep the server tool call before its result`,
    );
  }
  required(b.content, `${path}.content`);
  if (b.caller !== undefined) typedObject(b.caller, `${path}.caller`);
  if (b.is_error !== undefined) bool(b.is_error, `${path}.is_error`);
  cacheControl(b.cache_control, `${path}.cache_control`);
}
