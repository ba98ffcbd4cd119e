// Narrowing helpers for validated wire bodies (values are JsonValue, never `any`), shared by the
// dialects and the translators.
import type { JsonObject, JsonValue } from '../chunks.js';

export function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asArray(v: JsonValue | undefined): JsonValue[] {
  return Array.isArray(v) ? v : [];
}

export function asString(v: JsonValue | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Every key of `o` is one of `keys`. */
export function onlyKeys(o: JsonObject, keys: ReadonlySet<string>): boolean {
  for (const k in o) if (!keys.has(k)) return false;
  return true;
}
