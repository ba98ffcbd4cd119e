// The values of a frame layout's holes, read from the text its expression matched (layout.ts): a
// string hole's body decoded as the strict parser decodes it, and a `counts` hole's object read by a
// small scanner. The expression has already checked their grammar; what is left to refuse here is a
// key an object names twice.
import type { JsonObject, JsonValue } from '../chunks.js';

export function text(raw: string): string {
  // escapes are decoded by JSON.parse, as the strict parser decodes them
  return raw.indexOf('\\') < 0 ? raw : (JSON.parse(`"${raw}"`) as string);
}

/**
 * The object of a matched counts hole, read from its text (the expression has checked its grammar:
 * keys and strings without escapes, no whitespace), or undefined when an object in it names a key
 * twice. `__proto__` becomes an own member, as the strict parser makes it.
 */
export function counts(raw: string): JsonObject | undefined {
  return members(raw, 0)?.[0];
}

/** the object whose `{` is at `at`, and where it ends */
function members(raw: string, at: number): [JsonObject, number] | undefined {
  const out: JsonObject = {};
  let i = at + 1;
  if (raw.charCodeAt(i) === 0x7d /* } */) return [out, i + 1];
  for (;;) {
    const close = raw.indexOf('"', i + 1);
    const key = raw.slice(i + 1, close);
    if (Object.hasOwn(out, key)) return undefined;
    i = close + 2; // past `":`
    let value: JsonValue;
    const c = raw.charCodeAt(i);
    if (c === 0x7b /* { */) {
      const inner = members(raw, i);
      if (inner === undefined) return undefined;
      [value, i] = inner;
    } else if (c === 0x22 /* " */) {
      const end = raw.indexOf('"', i + 1);
      value = raw.slice(i + 1, end);
      i = end + 1;
    } else if (c === 0x6e /* n */) {
      value = null;
      i += 4;
    } else if (c === 0x74 /* t */) {
      value = true;
      i += 4;
    } else if (c === 0x66 /* f */) {
      value = false;
      i += 5;
    } else {
      let end = i + 1;
      for (let d = raw.charCodeAt(end); d >= 0x30 && d <= 0x39; d = raw.charCodeAt(++end));
      value = Number(raw.slice(i, end));
      i = end;
    }
    if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    else out[key] = value;
    if (raw.charCodeAt(i) !== 0x2c /* , */) return [out, i + 1];
    i++;
  }
}
