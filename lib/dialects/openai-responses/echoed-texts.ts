// The echoed request members earlier streams' `response.created` frames had, for the next stream's.
// An agent sends the same instructions (Codex: about 12.5 KB) and tools (ten, several KB) with every
// request, and OpenAI echoes them in every Response event; the terminal frames of a stream are read
// with created's texts compared (echoed-request.ts), but created itself, the first frame, had nothing
// to compare with and was parsed whole. So the texts of the created frames read strictly with their
// members' places (response-frame.ts) are remembered here, a few per member, and a later created
// frame with one of them in that member's place is read with a placeholder there (echoed-request.ts).
//
// Exact: a text is remembered only as it was read by the strict parser as the value of that very
// member of a Response frame's Response (the same depth in every such frame), with the value it
// decoded to; the frame it is compared in is then read with the placeholder and its members found to
// lie just where the placeholder does. Each stream gets its own copy of a remembered tools value
// (copyJson), built as the strict parser builds objects, so no two streams share a mutable object;
// an instructions value is a string.
//
// Bounded: at most SLOTS texts per member, of at most MAX_CHARS each, the latest first (a gateway in
// front of one agent's clients sees one or two sets). Held in memory only, like any request in flight.
import type { JsonValue } from '../../chunks.js';

export interface Known {
  text: string;
  value: JsonValue;
}

const SLOTS = 4;
/** longer texts are not remembered (the memory they would hold) */
const MAX_CHARS = 256 * 1024;

/** Remembered texts of one member, the latest first. */
export class KnownTexts {
  private readonly known: Known[] = [];

  /** how many texts are remembered */
  get size(): number {
    return this.known.length;
  }

  /** The remembered text that `data` has from `at` on, or undefined. */
  at(data: string, at: number): Known | undefined {
    for (const k of this.known) {
      // (a slice compared: several times faster than startsWith on the sliced strings frames are)
      if (data.slice(at, at + k.text.length) === k.text) return k;
    }
    return undefined;
  }

  /** Remember `text`, read strictly as the member's value `value`. */
  remember(text: string, value: JsonValue): void {
    if (text.length > MAX_CHARS || this.known.some((k) => k.text === text)) return;
    // (a slice of created's frame: it holds that frame, a created frame having no output)
    this.known.unshift({ text, value });
    if (this.known.length > SLOTS) this.known.pop();
  }

  /** forget every text (tests) */
  clear(): void {
    this.known.length = 0;
  }
}

/** the instructions and tools texts of the created frames read strictly (one set per process) */
export const KNOWN_INSTRUCTIONS = new KnownTexts();
export const KNOWN_TOOLS = new KnownTexts();

/**
 * A deep copy of a JSON value the strict parser built: plain objects and arrays, members in the same
 * order, a `__proto__` key an own member as the parser makes it (strict-grammar.ts).
 */
export function copyJson(v: JsonValue): JsonValue {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(copyJson);
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(v)) {
    const value = copyJson(v[key]!);
    if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    else out[key] = value;
  }
  return out;
}
