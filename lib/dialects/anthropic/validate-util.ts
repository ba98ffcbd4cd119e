// The Messages validators' own checks: cache_control, typed open objects, and the running tally
// (`Scan`) the validators fill while they walk the body once. The generic type guards they use
// live in lib/validate/checks.ts (shared with the OpenAI validators) and are re-exported here.
import type { JsonObject, JsonValue } from '../../chunks.js';
import { fields, obj, oneOf, rejectUnknown, str } from '../../validate/checks.js';

export * from '../../validate/checks.js';

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

const CACHE_CONTROL = fields('type', 'ttl', 'scope');

/** `{type: "ephemeral", ttl?: "5m" | "1h", scope?: "global"}`; an absent or null value is accepted. */
export function cacheControl(v: JsonValue | undefined, path: string): void {
  if (v === undefined || v === null) return;
  const o = obj(v, path);
  rejectUnknown(o, CACHE_CONTROL, path);
  oneOf(o.type, `${path}.type`, ['ephemeral']);
  if (o.ttl !== undefined) oneOf(o.ttl, `${path}.ttl`, ['5m', '1h']);
  if (o.scope !== undefined) oneOf(o.scope, `${path}.scope`, ['global']);
}

/** An open JSON object that must carry a non-empty string `type` (citations, safeguards). */
export function typedObject(v: JsonValue | undefined, path: string): JsonObject {
  const o = obj(v, path);
  str(o.type, `${path}.type`, 1);
  return o;
}

