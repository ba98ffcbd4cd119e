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
