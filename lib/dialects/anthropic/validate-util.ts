// The Messages validators' own checks: typed open objects, and the running tally (`Scan`) the
// validators fill while they walk the body once. The generic type guards they use live in
// lib/validate/checks.ts and the cache_control check in lib/validate/cache-control.ts (both shared
// with the OpenAI validators); both are re-exported here.
import type { JsonObject, JsonValue } from '../../chunks.js';
import { obj, str } from '../../validate/checks.js';

export * from '../../validate/checks.js';
export { cacheControl } from '../../validate/cache-control.js';

/** State collected during the single walk over a request body. */
export interface Scan {
  readonly betas: ReadonlySet<string>;
  /** names of the request's tools (custom, and hosted ones that carry a `name`) → path of the definition */
  readonly toolNames: Map<string, string>;
  /** `tool_use` ids of assistant messages seen so far */
  readonly toolUseIds: Set<string>;
  /** `server_tool_use` / `mcp_tool_use` ids of assistant messages seen so far */
  readonly serverToolUseIds: Set<string>;
  /** `thinking.type` as validated (`undefined` when omitted) */
  thinkingType: string | undefined;
  /** UTF-8 bytes of the text-bearing JSON (image data excluded) */
  bytes: number;
  images: number;
  /** an assistant `thinking` / `redacted_thinking` block is replayed */
  signedThinking: boolean;
  /** some `output_config.effort` (top level or per turn) was given */
  effort: boolean;
}

export function newScan(betas: readonly string[]): Scan {
  return {
    betas: new Set(betas),
    toolNames: new Map(),
    toolUseIds: new Set(),
    serverToolUseIds: new Set(),
    thinkingType: undefined,
    bytes: 0,
    images: 0,
    signedThinking: false,
    effort: false,
  };
}


/** An open JSON object that must carry a non-empty string `type` (citations, safeguards). */
export function typedObject(v: JsonValue | undefined, path: string): JsonObject {
  const o = obj(v, path);
  str(o.type, `${path}.type`, 1);
  return o;
}

