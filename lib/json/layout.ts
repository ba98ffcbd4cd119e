// Frame layouts: an upstream frame recognised by its exact text and decoded without the general
// parser (as the delta frames are: ../dialects/openai-chat/chunk-layout.ts and its siblings). A
// layout is written as a template value; `compileLayout` turns it into one anchored regular
// expression over the whole frame and a builder that makes the parsed object from the captures.
//
// Why a recognised frame parses exactly as parseStrict would (same value, same key order):
// - the expression admits no whitespace, and every key of an object is fixed by the template (a JS
//   object, which cannot name a key twice): no duplicate key can get through;
// - a literal value matches only its canonical JSON text (what JSON.stringify writes for it);
// - a string hole matches a JSON string body (no raw quote, backslash or control character; valid
//   escapes only), decoded by JSON.parse when it has an escape, as the strict parser decodes it;
// - an integer hole at most 15 digits, no sign, no leading zero; a number hole the same with an
//   optional minus and fraction, no exponent: always finite, read by Number() as the strict parser does;
// - a `counts` hole (usage objects, whose members vary by provider) admits only members of
//   integers, null, booleans or plain strings (letters, digits, `_ . -`), or objects of those, and is
//   read by JSON.parse after its keys are counted: a duplicate key means no match.
// Anything else, a near miss included, returns null: the caller takes the strict path, which throws
// the exact error. The test (test/json/layout.test.ts) checks both directions over recorded frames
// and their mutations.
import type { JsonObject, JsonValue } from '../chunks.js';

export type Hole =
  | { hole: 'string'; span?: string }
  | { hole: 'int' | 'number' | 'bool' | 'counts' | 'string?' | 'int?' };

export interface Optional {
  optional: Template;
}

export type Template = string | number | boolean | null | Hole | Template[] | Members;

/** an object's members, in order (a JS object cannot name a key twice, so neither can a layout) */
export interface Members {
  [key: string]: Template | Optional;
}

export const STRING: Hole = { hole: 'string' };
export const INT: Hole = { hole: 'int' };
export const NUMBER: Hole = { hole: 'number' };
export const BOOL: Hole = { hole: 'bool' };
export const COUNTS: Hole = { hole: 'counts' };
/** a string or null */
export const STRING_OR_NULL: Hole = { hole: 'string?' };
export const INT_OR_NULL: Hole = { hole: 'int?' };

/** A string hole whose place in the frame (quotes included) is returned under `name`. */
export function spanned(name: string): Hole {
  return { hole: 'string', span: name };
}

/** A member that may be absent (never the first of its object). */
export function optional(template: Template): Optional {
  return { optional: template };
}

export interface Recognised {
  parsed: JsonObject;
  /** where each spanned string lies in the frame, quotes included */
  spans: Record<string, [number, number]>;
}

export type Layout = (data: string) => Recognised | null;

/** longer frames take the general path (keeps the expression's backtracking stack small) */
const MAX_FRAME = 64 * 1024;

/** a JSON string's body, as an unrolled loop (runs of plain characters between escapes) */
const S = '[^"\\\\\\u0000-\\u001f]*(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\\\\u0000-\\u001f]*)*';
const I = '0|[1-9]\\d{0,14}';
const N = '-?(?:0|[1-9]\\d{0,14})(?:\\.\\d{1,16})?';
const KEY = '"[A-Za-z0-9_]+":';
const SCALAR = `(?:${I}|null|true|false|"[A-Za-z0-9_.\\-]*")`;
const FLAT = `\\{(?:${KEY}${SCALAR}(?:,${KEY}${SCALAR})*)?\\}`;
const VALUE = `(?:${SCALAR}|${FLAT})`;
const C = `\\{(?:${KEY}${VALUE}(?:,${KEY}${VALUE})*)?\\}`;

type Match = RegExpExecArray;
type Build = (m: Match) => JsonValue | undefined;

function text(raw: string): string {
  // escapes are decoded by JSON.parse, as the strict parser decodes them
  return raw.indexOf('\\') < 0 ? raw : (JSON.parse(`"${raw}"`) as string);
}

/** JSON.parse of a matched counts object (`__proto__` an own member, as the strict parser makes it), or undefined when it names a key twice. */
function counts(raw: string): JsonObject | undefined {
  const value = JSON.parse(raw) as JsonObject;
  // plain strings hold no quote, so every `":` ends a key
  let keys = 0;
  for (let p = raw.indexOf('":'); p !== -1; p = raw.indexOf('":', p + 2)) keys++;
  let members = 0;
  for (const k in value) {
    members++;
    const v = value[k];
    if (typeof v === 'object' && v !== null) members += Object.keys(v).length;
  }
  return members === keys ? value : undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

class Compiler {
  source = '';
  group = 0;
  readonly spans: [string, number][] = [];

  /** capturing group; returns its number */
  capture(inner: string): number {
    this.source += `(${inner})`;
    return ++this.group;
  }

  value(t: Template): Build {
    if (t === null || typeof t !== 'object') {
      this.source += escapeRegExp(JSON.stringify(t));
      return () => t;
    }
    if (Array.isArray(t)) return this.array(t);
    if ('hole' in t && typeof t.hole === 'string') return this.hole(t as Hole);
    return this.object(t as Members);
  }

  hole(h: Hole): Build {
    switch (h.hole) {
      case 'string': {
        this.source += '"';
        const g = this.capture(S);
        this.source += '"';
        if ('span' in h && h.span !== undefined) this.spans.push([h.span, g]);
        return (m) => text(m[g]!);
      }
      case 'int': {
        const g = this.capture(I);
        return (m) => Number(m[g]);
      }
      case 'number': {
        const g = this.capture(N);
        return (m) => Number(m[g]);
      }
      case 'bool': {
        const g = this.capture('true|false');
        return (m) => m[g] === 'true';
      }
      case 'counts': {
        const g = this.capture(C);
        return (m) => counts(m[g]!);
      }
      case 'string?': {
        this.source += '(?:"';
        const g = this.capture(S);
        this.source += '"|null)';
        return (m) => (m[g] === undefined ? null : text(m[g]));
      }
      case 'int?': {
        this.source += '(?:';
        const g = this.capture(I);
        this.source += '|null)';
        return (m) => (m[g] === undefined ? null : Number(m[g]));
      }
    }
  }

  array(items: Template[]): Build {
    this.source += '\\[';
    const builds = items.map((item, i) => {
      if (i > 0) this.source += ',';
      return this.value(item);
    });
    this.source += '\\]';
    return (m) => {
      const out: JsonValue[] = [];
      for (const b of builds) {
        const v = b(m);
        if (v === undefined) return undefined;
        out.push(v);
      }
      return out;
    };
  }

  object(members: Members): Build {
    this.source += '\\{';
    const builds: { key: string; build: Build; present: number }[] = [];
    let first = true;
    for (const key in members) {
      const member = members[key]!;
      const isOptional = typeof member === 'object' && member !== null && !Array.isArray(member) && 'optional' in member;
      if (isOptional && first) throw new Error(`layout: the first member (${key}) cannot be optional`);
      let present = 0;
      if (isOptional) this.source += '(?:';
      if (isOptional) present = this.capture(',');
      else if (!first) this.source += ',';
      this.source += escapeRegExp(JSON.stringify(key)) + ':';
      const build = this.value(isOptional ? (member as Optional).optional : (member as Template));
      if (isOptional) this.source += ')?';
      builds.push({ key, build, present });
      first = false;
    }
    this.source += '\\}';
    return (m) => {
      const out: JsonObject = {};
      for (const { key, build, present } of builds) {
        if (present !== 0 && m[present] === undefined) continue;
        const v = build(m);
        if (v === undefined) return undefined;
        out[key] = v;
      }
      return out;
    };
  }
}

/** The recogniser of one frame layout (an object template). Keys of the template are JSON keys in order. */
export function compileLayout(template: Members): Layout {
  const c = new Compiler();
  const build = c.object(template);
  const spans = c.spans;
  const re = new RegExp(`^${c.source}$`, spans.length > 0 ? 'd' : '');
  return (data) => {
    if (data.length > MAX_FRAME) return null;
    const m = re.exec(data);
    if (m === null) return null;
    const parsed = build(m) as JsonObject | undefined;
    if (parsed === undefined) return null;
    const out: Recognised = { parsed, spans: {} };
    for (const [name, g] of spans) {
      const [from, to] = m.indices![g]!;
      out.spans[name] = [from - 1, to + 1];
    }
    return out;
  };
}

/** The first of `layouts` that recognises `data`, or null. */
export function recognise(layouts: readonly Layout[], data: string): Recognised | null {
  for (const layout of layouts) {
    const r = layout(data);
    if (r !== null) return r;
  }
  return null;
}
