// The prompt-caching breakpoint object, as Messages defines it and as Chat clients (OpenRouter's
// convention, OpenCode, the AI SDK) send it on messages: one check for both dialects.
import type { JsonValue } from '../chunks.js';
import { fields, obj, oneOf, rejectUnknown } from './checks.js';

const CACHE_CONTROL = fields('type', 'ttl', 'scope');

/** `{type: "ephemeral", ttl?: "5m" | "1h", scope?: "global"}` at `path`; absent or null is accepted. */
export function cacheControl(v: JsonValue | undefined, path: string): void {
  if (v === undefined || v === null) return;
  const o = obj(v, path);
  rejectUnknown(o, CACHE_CONTROL, path);
  oneOf(o.type, `${path}.type`, ['ephemeral']);
  if (o.ttl !== undefined) oneOf(o.ttl, `${path}.ttl`, ['5m', '1h']);
  if (o.scope !== undefined) oneOf(o.scope, `${path}.scope`, ['global']);
}
