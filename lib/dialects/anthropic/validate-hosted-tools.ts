// Hosted (server) tool definitions: a `type` with a dated version. Only the fields the spec names are
// checked (`max_uses`, advisor `model` / `max_tokens`, `name`, `cache_control`); other fields of a
// hosted definition are preserved as open JSON.
import { capabilityRejected } from '../../errors.js';
import type { JsonObject } from '../../chunks.js';
import { cacheControl, int, shorten, str } from './validate-util.js';

export type HostedFamily = 'web_search' | 'web_fetch' | 'code_execution' | 'tool_search' | 'advisor';

/** Accepted hosted tool types (spec "Hosted tool families") → family. */
export const HOSTED_TOOL_TYPES: ReadonlyMap<string, HostedFamily> = new Map<string, HostedFamily>([
  ['web_search_20250305', 'web_search'],
  ['web_search_20260209', 'web_search'],
  ['web_search_20260318', 'web_search'],
  ['web_fetch_20250910', 'web_fetch'],
  ['web_fetch_20260209', 'web_fetch'],
  ['web_fetch_20260309', 'web_fetch'],
  ['web_fetch_20260318', 'web_fetch'],
  ['code_execution_20250522', 'code_execution'],
  ['code_execution_20250825', 'code_execution'],
  ['code_execution_20260120', 'code_execution'],
  ['code_execution_20260521', 'code_execution'],
  ['tool_search_tool_regex_20251119', 'tool_search'],
  ['tool_search_tool_bm25_20251119', 'tool_search'],
  ['tool_search_tool_regex', 'tool_search'],
  ['tool_search_tool_bm25', 'tool_search'],
  ['advisor_20260301', 'advisor'],
]);

/**
 * Web search / web fetch versions whose use of code execution carries no separate execution charge:
 * the only companions that make a hosted code-execution tool acceptable (its runtime charge could
 * not be settled otherwise).
 */
export const CODE_EXECUTION_COMPANIONS: ReadonlySet<string> = new Set([
  'web_search_20260209',
  'web_search_20260318',
  'web_fetch_20260209',
  'web_fetch_20260309',
  'web_fetch_20260318',
]);

export const MAX_HOSTED_USES = 100;
export const MIN_ADVISOR_MAX_TOKENS = 1024;

export interface HostedToolOptions {
  /** availability of an advisor model: null when unavailable; absent → any non-empty id is accepted */
  isAdvisorModel?(id: string): { maxOutputTokens?: number } | null;
}

/**
 * Validates a hosted tool definition whose `type` is in HOSTED_TOOL_TYPES. Returns the number of
 * billable uses it allows (web search `max_uses`, else 0).
 */
export function validateHostedTool(t: JsonObject, path: string, family: HostedFamily, opts: HostedToolOptions): number {
  if (t.name !== undefined) str(t.name, `${path}.name`, 1);
  cacheControl(t.cache_control, `${path}.cache_control`);
  switch (family) {
    case 'web_search':
      return int(t.max_uses, `${path}.max_uses`, 1, MAX_HOSTED_USES);
    case 'web_fetch':
      if (t.max_uses !== undefined) int(t.max_uses, `${path}.max_uses`, 1);
      return 0;
    case 'advisor':
      advisor(t, path, opts);
      return 0;
    default:
      return 0;
  }
}

function advisor(t: JsonObject, path: string, opts: HostedToolOptions): void {
  int(t.max_uses, `${path}.max_uses`, 1, MAX_HOSTED_USES);
  const model = str(t.model, `${path}.model`, 1);
  let limit: number | undefined;
  if (opts.isAdvisorModel) {
    const info = opts.isAdvisorModel(model);
    if (info === null) {
      throw capabilityRejected(
        `${path}.model`,
        `advisor model "${shorten(model)}" is not available: an advisor tool names a catalog model configured as an advisor ("advisor": true). Change it to such a model id (see GET /v1/models) or remove the advisor tool`,
      );
    }
    limit = info.maxOutputTokens;
  }
  if (t.max_tokens !== undefined) int(t.max_tokens, `${path}.max_tokens`, MIN_ADVISOR_MAX_TOKENS, limit);
}

/** `mcp_toolset` and any other unknown hosted type: 400 capability_rejected at `tools[i].type`. */
export function unsupportedToolType(type: string, path: string): never {
  if (type === 'mcp_toolset') {
    throw capabilityRejected(
      `${path}.type`,
      'hosted MCP toolsets are not supported (managed MCP servers are not implemented). Remove the tool; run MCP tools on the client and declare them as custom tools',
    );
  }
  throw capabilityRejected(
    `${path}.type`,
    `tool type "${shorten(type)}" is not supported. Remove it, or declare a custom tool (name, description, input_schema, no type); ` +
      `supported hosted types: ${[...HOSTED_TOOL_TYPES.keys()].join(', ')}`,
  );
}

/** Standalone hosted code execution: its runtime charge cannot be settled. */
export function standaloneCodeExecution(path: string): never {
  throw capabilityRejected(
    `${path}.type`,
    'standalone hosted code execution cannot be billed. Remove the tool, or use it only together with a ' +
      `web search or web fetch tool of a version without separate execution charge (${[...CODE_EXECUTION_COMPANIONS].join(', ')})`,
  );
}
