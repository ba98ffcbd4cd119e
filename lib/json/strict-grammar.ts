// The grammar of the strict parser (strict-parse.ts is its entry point): a recursive descent over a
// decoded string that rejects duplicate keys and non-finite numbers, and names the JSON path and the
// UTF-8 byte offset of the first problem. It runs on every request body and upstream event, so the
// hot loop scans with charCodeAt, slices escape-free strings directly and keeps the path as a stack
// of segments, formatted only when throwing.
import type { JsonObject, JsonValue } from '../chunks.js';
import { formatPath } from './path.js';
import { describe, findStringError, JsonSyntaxError } from './syntax-error.js';

// Parser state. Parsing is synchronous and never re-entered, so module-level state is safe and fast.
let src = '';
let pos = 0;
let len = 0;
let maxDepth = 0;
/** number of valid segments in `segs`: the path of the value being parsed */
let depth = 0;
const segs: (string | number)[] = [];
/** where the current parse records top-level member value ranges (null: not asked) */
let topLevel: Map<string, [number, number]> | null = null;

/** Parse `text` as one JSON value; `ranges`, when given, is filled with the top-level member value ranges. */
export function runStrict(text: string, limit: number, ranges: Map<string, [number, number]> | null): JsonValue {
  src = text;
  pos = 0;
  len = text.length;
  maxDepth = limit;
  depth = 0;
  topLevel = ranges;
  try {
    if (len > 0 && text.charCodeAt(0) === 0xfeff) fail('a byte order mark is not allowed', 0);
    const value = parseValue();
    skipWs();
    if (pos < len) {
      depth = 0;
      fail(`unexpected ${describe(src, pos)} after the JSON value`, pos);
    }
    return value;
  } catch (err) {
    if (err instanceof RangeError) {
      fail(`nesting too deep for the stack (depth ${depth})`, pos); // only with a very large maxDepth
    }
    throw err;
  } finally {
    // do not keep the input (or key slices of it) alive
    src = '';
    segs.length = 0;
    topLevel = null;
  }
}

function fail(reason: string, at: number, pathDepth: number = depth): never {
  const offset = Buffer.byteLength(src.slice(0, at), 'utf8');
  throw new JsonSyntaxError(reason, formatPath(segs.slice(0, pathDepth)), offset);
}

function skipWs(): void {
  let c = src.charCodeAt(pos);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = src.charCodeAt(++pos);
}

function parseValue(): JsonValue {
  let c = src.charCodeAt(pos);
  if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
    skipWs();
    c = src.charCodeAt(pos);
  }
  if (c === 0x22) return parseString();
  if (c === 0x7b) return parseObject();
  if (c === 0x5b) return parseArray();
  if ((c >= 0x30 && c <= 0x39) || c === 0x2d) return parseNumber();
  if (c === 0x74) return literal('true', true);
  if (c === 0x66) return literal('false', false);
  if (c === 0x6e) return literal('null', null);
  return unexpectedValue();
}

function unexpectedValue(): never {
  if (src.startsWith('NaN', pos)) fail('NaN is not valid JSON', pos);
  if (src.startsWith('Infinity', pos)) fail('Infinity is not valid JSON', pos);
  const c = src.charCodeAt(pos);
  if (c === 0x27) fail('strings must use double quotes', pos);
  if (c === 0x2f) fail('comments are not allowed', pos);
  if (c === 0x2b) fail('a number cannot start with "+"', pos);
  if (c === 0x2e) fail('a number cannot start with "."', pos);
  fail(`unexpected ${describe(src, pos)}, expected a JSON value`, pos);
}

function literal<T extends JsonValue>(word: string, value: T): T {
  if (src.startsWith(word, pos)) {
    pos += word.length;
    return value;
  }
  let i = 1;
  while (src.charCodeAt(pos + i) === word.charCodeAt(i)) i++;
  return fail(`invalid literal, expected "${word}" but found ${describe(src, pos + i)}`, pos + i);
}

function parseArray(): JsonValue[] {
  if (depth >= maxDepth) fail(`nesting deeper than ${maxDepth}`, pos);
  pos++;
  const arr: JsonValue[] = [];
  skipWs();
  if (src.charCodeAt(pos) === 0x5d) {
    pos++;
    return arr;
  }
  const d = depth++;
  for (let i = 0; ; i++) {
    segs[d] = i;
    arr.push(parseValue());
    skipWs();
    const c = src.charCodeAt(pos);
    if (c === 0x2c) {
      const comma = pos++;
      skipWs();
      if (src.charCodeAt(pos) === 0x5d) fail('trailing comma in array', comma, d);
      continue;
    }
    depth = d;
    if (c === 0x5d) {
      pos++;
      return arr;
    }
    fail(`expected "," or "]" after an array element, found ${describe(src, pos)}`, pos);
  }
}

function parseObject(): JsonObject {
  if (depth >= maxDepth) fail(`nesting deeper than ${maxDepth}`, pos);
  pos++;
  const obj: JsonObject = {};
  skipWs();
  let c = src.charCodeAt(pos);
  if (c === 0x7d) {
    pos++;
    return obj;
  }
  const d = depth;
  let comma = -1;
  for (;;) {
    if (c !== 0x22) {
      if (c === 0x7d && comma >= 0) fail('trailing comma in object', comma);
      if (c === 0x27) fail('object keys must use double quotes', pos);
      if (c === 0x2f) fail('comments are not allowed', pos);
      fail(`expected a string key, found ${describe(src, pos)}`, pos);
    }
    const keyAt = pos;
    const key = parseString();
    segs[d] = key;
    depth = d + 1;
    if (Object.hasOwn(obj, key)) fail(`duplicate key ${JSON.stringify(key)}`, keyAt);
    skipWs();
    if (src.charCodeAt(pos) !== 0x3a) fail(`expected ":" after an object key, found ${describe(src, pos)}`, pos);
    pos++;
    skipWs();
    const valueAt = pos;
    const value = parseValue();
    if (d === 0 && topLevel !== null) topLevel.set(key, [valueAt, pos]);
    if (key === '__proto__') {
      Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
    } else {
      obj[key] = value;
    }
    skipWs();
    c = src.charCodeAt(pos);
    depth = d;
    if (c === 0x2c) {
      comma = pos++;
      skipWs();
      c = src.charCodeAt(pos);
      continue;
    }
    if (c === 0x7d) {
      pos++;
      return obj;
    }
    fail(`expected "," or "}" after an object member, found ${describe(src, pos)}`, pos);
  }
}

function parseString(): string {
  const start = ++pos;
  let i = start;
  for (; i < len; i++) {
    const c = src.charCodeAt(i);
    if (c <= 0x5c) {
      if (c === 0x22) {
        pos = i + 1;
        return src.slice(start, i);
      }
      if (c === 0x5c) return parseEscapedString(start, i);
      if (c < 0x20) fail(`unescaped ${describe(src, i)} in string`, i);
    }
  }
  return fail('unterminated string', len);
}

// A string with escapes: find its closing quote and let JSON.parse decode (and check) the slice. Only
// when that fails does findStringError (syntax-error.ts) look for the exact error.
function parseEscapedString(start: number, i: number): string {
  let q = src.indexOf('"', i);
  for (;;) {
    if (q < 0) break;
    let b = q - 1;
    while (src.charCodeAt(b) === 0x5c) b--;
    if ((q - b) % 2 === 1) {
      try {
        const s = JSON.parse(src.slice(start - 1, q + 1)) as string;
        pos = q + 1;
        return s;
      } catch {
        break;
      }
    }
    q = src.indexOf('"', q + 1);
  }
  const { reason, at } = findStringError(src, start, i);
  return fail(reason, at);
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function parseNumber(): number {
  const start = pos;
  let i = pos;
  let c = src.charCodeAt(i);
  if (c === 0x2d) {
    c = src.charCodeAt(++i);
    if (!isDigit(c)) {
      if (src.startsWith('Infinity', i)) fail('-Infinity is not valid JSON', start);
      fail(`expected a digit after "-", found ${describe(src, i)}`, i);
    }
  }
  if (c === 0x30) {
    c = src.charCodeAt(++i);
    if (isDigit(c)) fail('leading zeros are not allowed', start);
    if (c === 0x78 || c === 0x58) fail('hexadecimal numbers are not allowed', start);
  } else {
    do c = src.charCodeAt(++i);
    while (isDigit(c));
  }
  let integer = true;
  if (c === 0x2e) {
    integer = false;
    c = src.charCodeAt(++i);
    if (!isDigit(c)) fail(`expected a digit after the decimal point, found ${describe(src, i)}`, i);
    do c = src.charCodeAt(++i);
    while (isDigit(c));
  }
  if (c === 0x65 || c === 0x45) {
    integer = false;
    c = src.charCodeAt(++i);
    if (c === 0x2b || c === 0x2d) c = src.charCodeAt(++i);
    if (!isDigit(c)) fail(`expected a digit in the exponent, found ${describe(src, i)}`, i);
    do c = src.charCodeAt(++i);
    while (isDigit(c));
  }
  pos = i;
  if (integer && i - start <= 15) {
    const neg = src.charCodeAt(start) === 0x2d;
    let n = 0;
    for (let k = neg ? start + 1 : start; k < i; k++) n = n * 10 + (src.charCodeAt(k) - 0x30);
    return neg ? -n : n;
  }
  const n = Number(src.slice(start, i));
  if (n === Infinity || n === -Infinity) fail('number out of range (not finite)', start);
  return n;
}
