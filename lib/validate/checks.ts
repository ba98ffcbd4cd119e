// Small checks shared by every client-request validator (Messages, Chat Completions, Responses):
// type guards that throw a 400 naming the exact path (`messages[3].content[0].type`), the
// unknown-field check and the JSON size estimate. Dialect-specific checks stay in the dialect.
import { invalid } from '../errors.js';
import type { JsonObject, JsonValue } from '../chunks.js';

import { isObject } from '../json/values.js';

export { isObject };

/** How a value is named in messages: `a string`, `null`, `the number 1.5`. */
export function kind(v: JsonValue | undefined): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  switch (typeof v) {
    case 'object':
      return 'an object';
    case 'string':
      return 'a string';
    case 'number':
      return `the number ${v}`;
    default:
      return `the boolean ${v}`;
  }
}

/** A caller-supplied string cut to a size fit for an error message. */
export function shorten(s: string, max = 64): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export function keyPath(path: string, key: string): string {
  const shown = shorten(key, 80);
  return path === '' ? shown : `${path}.${shown}`;
}

export function fields(...names: string[]): ReadonlySet<string> {
  return new Set(names);
}

/** Rejects any key of `o` outside `allowed`, naming the first one. */
export function rejectUnknown(o: JsonObject, allowed: ReadonlySet<string>, path: string): void {
  for (const k in o) {
    if (!allowed.has(k)) throw invalid(keyPath(path, k), `unknown field; allowed here: ${[...allowed].join(', ')}`);
  }
}

export function required(v: JsonValue | undefined, path: string): JsonValue {
  if (v === undefined) throw invalid(path, 'required field is missing');
  return v;
}

export function obj(v: JsonValue | undefined, path: string): JsonObject {
  if (isObject(v)) return v;
  throw invalid(path, v === undefined ? 'required field is missing' : `must be an object, got ${kind(v)}`);
}

export function arr(v: JsonValue | undefined, path: string): JsonValue[] {
  if (Array.isArray(v)) return v;
  throw invalid(path, v === undefined ? 'required field is missing' : `must be an array, got ${kind(v)}`);
}

export function str(v: JsonValue | undefined, path: string, min = 0, max = Infinity): string {
  if (typeof v !== 'string') {
    throw invalid(path, v === undefined ? 'required field is missing' : `must be a string, got ${kind(v)}`);
  }
  if (v.length < min) throw invalid(path, min === 1 ? 'must be a non-empty string' : `must be at least ${min} characters`);
  if (v.length > max) throw invalid(path, `must be at most ${max} characters, got ${v.length}`);
  return v;
}

export function bool(v: JsonValue | undefined, path: string): boolean {
  if (typeof v === 'boolean') return v;
  throw invalid(path, v === undefined ? 'required field is missing' : `must be a boolean, got ${kind(v)}`);
}

/** A safe integer in [min, max]. */
export function int(v: JsonValue | undefined, path: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw invalid(path, v === undefined ? 'required field is missing' : `must be an integer ${range}, got ${kind(v)}`);
  }
  if (v < min || v > max) throw invalid(path, `must be an integer ${range}, got ${v}`);
  return v;
}

/** A finite number in [min, max]. */
export function num(v: JsonValue | undefined, path: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw invalid(path, v === undefined ? 'required field is missing' : `must be a number from ${min} to ${max}, got ${kind(v)}`);
  }
  return v;
}

export function oneOf<T extends string>(v: JsonValue | undefined, path: string, values: readonly T[]): T {
  if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
  const list = values.map((x) => `"${x}"`).join(', ');
  const got = typeof v === 'string' ? `"${shorten(v)}"` : kind(v);
  throw invalid(path, v === undefined ? `required field is missing; one of ${list}` : `must be one of ${list}, got ${got}`);
}

/**
 * UTF-8 size of `v` written as compact JSON, without building the string (escapes are counted as
 * one byte: the bound is about tokens, not wire bytes).
 */
export function jsonBytes(v: JsonValue): number {
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8') + 2;
  if (typeof v === 'number') return 24;
  if (typeof v === 'boolean' || v === null) return 5;
  let n = 2;
  if (Array.isArray(v)) {
    for (const x of v) n += jsonBytes(x) + 1;
    return n;
  }
  for (const k in v) n += Buffer.byteLength(k, 'utf8') + 4 + jsonBytes(v[k] as JsonValue);
  return n;
}
