// Assertion helpers of the strict parser's tests.
import { JsonSyntaxError, parseStrict } from '../../lib/json/strict-parse.js';

/** What the strict parser builds of `text`, or undefined where it refuses it. */
export function strictValue(text: string): unknown {
  try {
    return parseStrict(text);
  } catch {
    return undefined;
  }
}

/** Deep equality that also checks key order, prototypes and -0. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === 'number') return typeof b === 'number' && Object.is(a, b);
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameJson(ra[k], rb[k]));
}

export const hasLoneSurrogate = (s: string): boolean => /[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''));

/** an ASCII-only label for assertion messages (raw U+2028 would break the TAP stream) */
export const label = (s: string): string => JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function catchError(fn: () => unknown): JsonSyntaxError {
  try {
    fn();
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err;
    throw err;
  }
  throw new Error('expected a JsonSyntaxError');
}

/** bytes from text (as UTF-8) and raw byte runs */
export const bytes = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
