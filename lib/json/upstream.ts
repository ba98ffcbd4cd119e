// Checks every upstream decoder shares: strict parsing of provider JSON into objects and field
// checks that fail closed with GW_ERR_INTEGRITY (provider work has happened by then).
import type { JsonObject, JsonValue } from '../chunks.js';
import type { GatewayError } from '../errors.js';
import { errors } from '../errors/index.js';
import { parseChecked } from './checked-parse.js';
import { JsonSyntaxError } from './strict-parse.js';

/** GW_ERR_INTEGRITY with a precise detail ("The provider response failed an integrity check: <detail>"). */
export function integrityError(detail: string, cause?: unknown): GatewayError {
  return errors.integrity(detail, cause);
}

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Strictly parse provider JSON that must be an object (duplicate keys, NaN/Infinity → integrity
 * error): JSON.parse plus checks, the strict parser only when a check fails (checked-parse.ts).
 */
export function parseObject(text: string, what: string): JsonObject {
  let value: JsonValue;
  try {
    value = parseChecked(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw integrityError(`${what}: invalid JSON at ${err.path || '(root)'}: ${err.reason}`, err);
    throw integrityError(`${what}: invalid JSON`, err);
  }
  if (!isObject(value)) throw integrityError(`${what}: expected a JSON object`);
  return value;
}

/** A string field that may be absent or null (undefined then); anything else is an integrity error. */
export function optionalString(obj: JsonObject, key: string, where: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw integrityError(`${where}.${key} must be a string or null`);
  return value;
}
