// The router's encoder: a RouterInput → a sparse feature vector, in process, with no allocation per
// request. Hashed word unigrams and bigrams and character trigrams of the recent turns (lowercased,
// digits folded to one class so "17 + 25" and "3 + 4" share grams), each group L2-normalised, plus a
// few structural features (length, turns, code, math, tools, effort, attachments, and soft bins of
// the length and of the step counts) at fixed slots after the hashed ones. One Encoder owns its buffers: it is reused request after request (the
// router is single-threaded, like the event loop it runs on).
import type { RouterEffort, RouterInput, RouterTurn } from './router-api.js';

/** The number of hashed slots (a power of two) shared by words, bigrams and trigrams. */
export const HASH_BITS = 14;
export const HASH_SIZE = 1 << HASH_BITS;

/** The structural features, in slot order after the hashed ones. */
export const STRUCTURAL = [
  'bias', 'log-chars', 'turns', 'user-turns', 'tool-turns', 'code', 'code-fence', 'math', 'latex', 'digits',
  'questions', 'choices', 'lines', 'words', 'numbers', 'sentences', 'tools', 'attachments', 'log-input-tokens',
  'effort-none', 'effort-minimal', 'effort-low', 'effort-medium', 'effort-high', 'effort-xhigh',
  // soft bins over log2 of the length and of the step counts (see softBins)
  'chars-64', 'chars-128', 'chars-256', 'chars-512', 'chars-1k', 'chars-2k', 'chars-4k', 'chars-8k',
  'sentences-1', 'sentences-2', 'sentences-4', 'sentences-8', 'sentences-16',
  'numbers-1', 'numbers-2', 'numbers-4', 'numbers-8', 'numbers-16', 'numbers-32',
  // the length bins again, for a word problem (numbers, no options): there the length is the steps
  'problem-chars-64', 'problem-chars-128', 'problem-chars-256', 'problem-chars-512', 'problem-chars-1k', 'problem-chars-2k', 'problem-chars-4k', 'problem-chars-8k',
] as const;
export const FEATURES = HASH_SIZE + STRUCTURAL.length;

const EFFORT_SLOT: Record<RouterEffort, number> = {
  none: STRUCTURAL.indexOf('effort-none'), minimal: STRUCTURAL.indexOf('effort-minimal'), low: STRUCTURAL.indexOf('effort-low'),
  medium: STRUCTURAL.indexOf('effort-medium'), high: STRUCTURAL.indexOf('effort-high'), xhigh: STRUCTURAL.indexOf('effort-xhigh'),
};
const S = (name: (typeof STRUCTURAL)[number]): number => HASH_SIZE + STRUCTURAL.indexOf(name);

/** How many of the most recent turns are read; older ones weigh on nothing but `turns`. */
const RECENT_TURNS = 4;
/** A long turn is read as its head and its tail (the question usually ends it). */
const HEAD_CHARS = 1500;
const TAIL_CHARS = 1500;
const MAX_TOUCHED = 4 * (RECENT_TURNS * (HEAD_CHARS + TAIL_CHARS)) + STRUCTURAL.length;

const MASK = HASH_SIZE - 1;
// distinct seeds keep words, bigrams and trigrams apart in the shared table
const WORD_SEED = 0x811c9dc5;
const TRIGRAM_SEED = 0x2545f491;
const BIGRAM_MUL = 0x9e3779b1;

/** A character class for the trigrams: lowercase letters, digits folded to '0', runs of space to one. */
function fold(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  if (c >= 48 && c <= 57) return 48;
  if (c === 9 || c === 10 || c === 13) return 32;
  return c;
}

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || c === 48 || c === 95 || c > 127;
}

export class Encoder {
  /** the feature values, dense; only `touched[0..count)` are non-zero after encode() */
  readonly values = new Float64Array(FEATURES);
  readonly touched = new Int32Array(MAX_TOUCHED);
  count = 0;
  // per-group squared norms, filled as grams are counted
  private wordStart = 0;
  private gramStart = 0;

  /** Encodes `input`, replacing the previous encoding. */
  encode(input: RouterInput): void {
    this.clear();
    const turns = input.turns;
    const first = Math.max(0, turns.length - RECENT_TURNS);
    let chars = 0;
    let userTurns = 0;
    let toolTurns = 0;
    for (let i = 0; i < turns.length; i++) {
      const t = turns[i]!;
      if (t.role === 'user') userTurns++;
      else if (t.role === 'tool') toolTurns++;
      chars += t.text.length;
    }
    this.wordStart = this.count;
    for (let i = first; i < turns.length; i++) this.words(turns[i]!);
    this.normalise(this.wordStart, this.count);
    this.gramStart = this.count;
    let code = 0, fence = 0, math = 0, latex = 0, digits = 0, questions = 0, choices = 0, lines = 0, read = 0;
    // words, numbers (digit runs) and sentence ends of the last user turn: how many steps it asks for
    let words = 0, numbers = 0, sentences = 0;
    for (let i = first; i < turns.length; i++) {
      const text = turns[i]!.text;
      this.trigrams(text);
      const n = text.length;
      for (let j = 0; j < n; j++) {
        if (n > HEAD_CHARS + TAIL_CHARS && j === HEAD_CHARS) j = n - TAIL_CHARS;
        const c = text.charCodeAt(j);
        read++;
        const before = j > 0 ? text.charCodeAt(j - 1) : 32;
        if (c === 32 && before !== 32 && before !== 10) words++;
        if (c >= 48 && c <= 57 && !(before >= 48 && before <= 57) && before !== 46 && before !== 44) numbers++;
        if ((c === 32 || c === 10) && (before === 46 || before === 33 || before === 63)) sentences++;
        if (c === 123 || c === 125 || c === 59) code++; // { } ;
        else if (c === 96) fence++; // `
        else if (c === 61 || c === 43 || c === 42 || c === 94 || c === 47) math++; // = + * ^ /
        else if (c === 92 || c === 36) latex++; // \ $
        else if (c >= 48 && c <= 57) digits++;
        else if (c === 63) questions++;
        else if (c === 10) {
          lines++;
          // "\nA. " / "\nB) ": a multiple-choice option
          const d = text.charCodeAt(j + 1);
          const e = text.charCodeAt(j + 2);
          if (d >= 65 && d <= 72 && (e === 46 || e === 41)) choices++;
        }
      }
    }
    this.normalise(this.gramStart, this.count);
    const per = read > 0 ? 1 / read : 0;
    this.set(S('bias'), 1);
    this.set(S('log-chars'), Math.log1p(chars) / 10);
    this.set(S('turns'), Math.log1p(turns.length) / 3);
    this.set(S('user-turns'), Math.log1p(userTurns) / 3);
    this.set(S('tool-turns'), Math.log1p(toolTurns) / 3);
    this.set(S('code'), Math.min(1, code * per * 20));
    this.set(S('code-fence'), fence > 0 ? 1 : 0);
    this.set(S('math'), Math.min(1, math * per * 20));
    this.set(S('latex'), Math.min(1, latex * per * 20));
    this.set(S('digits'), Math.min(1, digits * per * 10));
    this.set(S('questions'), Math.log1p(questions) / 3);
    this.set(S('choices'), choices >= 2 ? 1 : 0);
    this.set(S('lines'), Math.log1p(lines) / 5);
    this.set(S('words'), Math.log1p(words) / 6);
    this.set(S('numbers'), Math.log1p(numbers) / 3);
    this.set(S('sentences'), Math.log1p(sentences) / 3);
    this.set(S('tools'), Math.log1p(input.tools) / 3);
    this.set(S('attachments'), Math.log1p(input.attachments) / 2);
    this.set(S('log-input-tokens'), Math.log1p(Math.max(0, input.inputTokens)) / 10);
    if (input.effort !== null) this.set(HASH_SIZE + EFFORT_SLOT[input.effort], 1);
    this.softBins(S('chars-64'), 8, chars, 6);
    this.softBins(S('sentences-1'), 5, sentences, 0);
    this.softBins(S('numbers-1'), 6, numbers, 0);
    if (numbers >= 3 && choices < 2) this.softBins(S('problem-chars-64'), 8, chars, 6);
  }

  /**
   * A count spread over `n` slots whose centres are 2^from, 2^(from+1), …: the two nearest share
   * the weight by how close log2(count) is to each, so a linear head reads the length (or the
   * number of steps) non-linearly — a problem twice as long is not twice as hard at every length.
   */
  private softBins(first: number, n: number, count: number, from: number): void {
    const v = Math.min(n - 1, Math.max(0, Math.log2(Math.max(1, count)) - from));
    const i = Math.floor(v);
    const frac = v - i;
    this.set(first + i, 1 - frac);
    if (i + 1 < n) this.set(first + i + 1, frac);
  }

  private clear(): void {
    for (let i = 0; i < this.count; i++) this.values[this.touched[i]!] = 0;
    this.count = 0;
  }

  private add(slot: number, v: number): void {
    if (this.values[slot] === 0) {
      if (this.count === MAX_TOUCHED) return;
      this.touched[this.count++] = slot;
    }
    this.values[slot] += v;
  }

  private set(slot: number, v: number): void {
    if (v !== 0) this.add(slot, v - this.values[slot]!);
  }

  /** Scales the slots touched in [from, to) to unit L2 norm (a slot shared by two groups is rare). */
  private normalise(from: number, to: number): void {
    let sq = 0;
    for (let i = from; i < to; i++) {
      const v = this.values[this.touched[i]!]!;
      sq += v * v;
    }
    if (sq === 0) return;
    const k = 1 / Math.sqrt(sq);
    for (let i = from; i < to; i++) this.values[this.touched[i]!]! *= k;
  }

  private words(turn: RouterTurn): void {
    const text = turn.text;
    const n = text.length;
    // a role marker so a word in a tool result and in a question do not share a slot
    const roleSalt = turn.role === 'user' ? 0 : turn.role === 'system' ? 0x51 : turn.role === 'tool' ? 0xa3 : 0xe7;
    let h = WORD_SEED ^ roleSalt;
    let inWord = false;
    let prev = 0;
    for (let j = 0; j <= n; j++) {
      if (j === HEAD_CHARS && n > HEAD_CHARS + TAIL_CHARS) {
        if (inWord) this.word(h, prev);
        inWord = false;
        prev = 0;
        j = n - TAIL_CHARS;
      }
      const c = j < n ? fold(text.charCodeAt(j)) : 32;
      if (isWordChar(c)) {
        if (!inWord) {
          inWord = true;
          h = WORD_SEED ^ roleSalt;
        }
        h = Math.imul(h ^ c, 0x01000193);
      } else if (inWord) {
        inWord = false;
        prev = this.word(h, prev);
      }
    }
  }

  /** Counts a word and its bigram with the previous word; returns the word's hash for the next one. */
  private word(h: number, prev: number): number {
    this.add(h & MASK, 1);
    if (prev !== 0) this.add((Math.imul(prev, BIGRAM_MUL) ^ h) >>> (32 - HASH_BITS), 1);
    return h | 1;
  }

  private trigrams(text: string): void {
    const n = text.length;
    let a = 32, b = 32;
    for (let j = 0; j < n; j++) {
      if (n > HEAD_CHARS + TAIL_CHARS && j === HEAD_CHARS) {
        j = n - TAIL_CHARS;
        a = 32;
        b = 32;
      }
      const c = fold(text.charCodeAt(j));
      if (c === 32 && b === 32) continue; // runs of white space count once
      const h = Math.imul(Math.imul(Math.imul(TRIGRAM_SEED ^ a, 0x01000193) ^ b, 0x01000193) ^ c, 0x01000193);
      this.add(h >>> (32 - HASH_BITS), 1);
      a = b;
      b = c;
    }
  }
}
