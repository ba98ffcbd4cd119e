// Frame layouts: an upstream frame recognised by its exact text and decoded without the general
// parser (as the delta frames are: ../dialects/openai-chat/chunk-layout.ts and its siblings). A
// layout is written as a template value; `compileLayout` turns it into one anchored regular
// expression over the whole frame and a builder, generated code that makes the parsed object from
// the captures.
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
//   integers, null, booleans or plain strings (letters, digits, `_ . -`), or objects of those, read
//   by a small scanner that refuses a duplicate key (no match then).
// Anything else, a near miss included, returns null: the caller takes the strict path, which throws
// the exact error. The tests check both directions: each hole on its own (test/json/layout.test.ts),
// and every dialect's layouts over recorded and bench frames and their mutations
// (test/dialects/frame-recognition.test.ts).
import type { JsonObject } from '../chunks.js';
import { counts, text } from './layout-values.js';

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

/** A string hole whose place in the frame (quotes included) is returned under `name` (one a layout, never in an optional member). */
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

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/**
 * Walks a template once, writing the expression (`source`) and the body of the builder function
 * (`code`, statements that fill objects member by member from the match `m`, then `return`). Each
 * layout gets its own builder, so every property store in it sees one object shape (a shared
 * closure walking the template was several times slower: its stores saw every layout's keys).
 */
class Compiler {
  source = '';
  code = '';
  /** group 1 is the text before the spanned string (empty without one): see compileLayout */
  group = 1;
  private vars = 0;
  /** inside an optional member */
  private optional = 0;
  span: { name: string; group: number; at: number } | undefined;

  /** capturing group; returns its number */
  private capture(inner: string): number {
    this.source += `(${inner})`;
    return ++this.group;
  }

  private variable(): string {
    return `v${this.vars++}`;
  }

  /** Writes the value's expression part and returns its JS expression (statements before it go to `code`). */
  value(t: Template): string {
    if (t === null || typeof t !== 'object') {
      this.source += escapeRegExp(JSON.stringify(t));
      return JSON.stringify(t);
    }
    if (Array.isArray(t)) return this.array(t);
    if ('hole' in t && typeof t.hole === 'string') return this.hole(t as Hole);
    return this.object(t as Members);
  }

  private hole(h: Hole): string {
    switch (h.hole) {
      case 'string': {
        const at = this.source.length;
        this.source += '"';
        const g = this.capture(S);
        this.source += '"';
        if ('span' in h && h.span !== undefined) {
          if (this.span !== undefined || this.optional > 0) throw new Error('layout: one span, outside optional members');
          this.span = { name: h.span, group: g, at };
        }
        return `text(m[${g}])`;
      }
      case 'int':
        return `Number(m[${this.capture(I)}])`;
      case 'number':
        return `Number(m[${this.capture(N)}])`;
      case 'bool':
        return `m[${this.capture('true|false')}] === "true"`;
      case 'counts': {
        const v = this.variable();
        this.code += `const ${v} = counts(m[${this.capture(C)}]);\nif (${v} === undefined) return undefined;\n`;
        return v;
      }
      case 'string?': {
        this.source += '(?:"';
        const g = this.capture(S);
        this.source += '"|null)';
        return `(m[${g}] === undefined ? null : text(m[${g}]))`;
      }
      case 'int?': {
        this.source += '(?:';
        const g = this.capture(I);
        this.source += '|null)';
        return `(m[${g}] === undefined ? null : Number(m[${g}]))`;
      }
    }
  }

  private array(items: Template[]): string {
    this.source += '\\[';
    const values = items.map((item, i) => {
      if (i > 0) this.source += ',';
      const value = this.value(item); // first: it may write statements of its own
      const v = this.variable();
      this.code += `const ${v} = ${value};\n`;
      return v;
    });
    this.source += '\\]';
    return `[${values.join(', ')}]`;
  }

  object(members: Members): string {
    this.source += '\\{';
    const o = this.variable();
    this.code += `const ${o} = {};\n`;
    let first = true;
    for (const key in members) {
      if (key === '__proto__') throw new Error('layout: a __proto__ member');
      const member = members[key]!;
      const isOptional = typeof member === 'object' && member !== null && !Array.isArray(member) && 'optional' in member;
      if (isOptional && first) throw new Error(`layout: the first member (${key}) cannot be optional`);
      if (isOptional) {
        this.source += '(?:';
        const present = this.capture(',');
        this.optional++;
        this.code += `if (m[${present}] !== undefined) {\n`;
      } else if (!first) {
        this.source += ',';
      }
      this.source += escapeRegExp(JSON.stringify(key)) + ':';
      const value = this.value(isOptional ? (member as Optional).optional : (member as Template));
      this.code += `${o}[${JSON.stringify(key)}] = ${value};\n`;
      if (isOptional) {
        this.source += ')?';
        this.optional--;
        this.code += '}\n';
      }
      first = false;
    }
    this.source += '\\}';
    return o;
  }
}

type Build = (m: RegExpExecArray, text: (raw: string) => string, counts: (raw: string) => JsonObject | undefined) => JsonObject | undefined;

export interface LayoutOptions {
  /**
   * JSON whitespace (space, tab, line feed, carriage return) admitted before the frame's last `}`,
   * as a server that pads its frames writes it (Anthropic's signature_delta). Whitespace between two
   * tokens is insignificant to the strict parser, so the object is the same.
   */
  padEnd?: boolean;
}

/**
 * The recogniser of one frame layout (an object template). Its builder is generated code (from the
 * template in this source, never from input). A spanned string's place comes from the length of
 * group 1, which holds all the text before it (cheaper than the expression's `d` flag).
 */
export function compileLayout(template: Members, opts: LayoutOptions = {}): Layout {
  const c = new Compiler();
  const root = c.object(template);
  // the root object's source ends with its `\}`
  if (opts.padEnd === true) c.source = `${c.source.slice(0, -2)}[ \\t\\n\\r]*\\}`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from the template, see above
  const build = new Function('m', 'text', 'counts', `${c.code}return ${root};`) as Build;
  const span = c.span;
  const source = span === undefined ? `()${c.source}` : `(${c.source.slice(0, span.at)})${c.source.slice(span.at)}`;
  const re = new RegExp(`^${source}$`);
  return (data) => {
    if (data.length > MAX_FRAME) return null;
    const m = re.exec(data);
    if (m === null) return null;
    const parsed = build(m, text, counts);
    if (parsed === undefined) return null;
    const out: Recognised = { parsed, spans: {} };
    if (span !== undefined) {
      const from = m[1]!.length;
      out.spans[span.name] = [from, from + m[span.group]!.length + 2];
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
