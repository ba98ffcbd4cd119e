// Messages' shape of gateway citations (decisions §11): a cited span is a text block of its own whose
// `citations` name the sources (`web_search_result_location`), as Anthropic's hosted search answers. One
// model text block becomes several: plain text streams as soon as no marker can claim it (up to the
// current sentence), a cited span goes out whole once its markers are known. A text block of white space
// alone is never made (Anthropic refuses those in history): that space joins the next block.
import type { CanonicalEvent, JsonObject, WebSearchSource } from '../chunks.js';
import { citedSpan, type ScanPiece } from './cite-scan.js';
import { cutText } from './sanitize.js';

/** Anthropic's `cited_text` is at most 150 characters of the source. */
const CITED_TEXT_CHARS = 150;
/** Text without a sentence end is streamed (up to its last space) once this long, citations or not. */
const MAX_PENDING = 2000;

/**
 * The citation a Messages client receives. `encrypted_index` holds the result id here: the Messages
 * encoders seal it (lib/search/seal.ts) so a later turn can send it back.
 */
export function resultLocation(src: WebSearchSource): JsonObject {
  return { type: 'web_search_result_location', url: src.url, title: src.title, encrypted_index: src.id, cited_text: cutText(src.snippet, CITED_TEXT_CHARS) };
}

export class BlockSplitter {
  /** the output index of the plain text block open now */
  private open: number | null = null;
  /** text not yet sent: a marker may still claim its last sentence */
  private pending = '';
  /** white space that waits for the next block's text */
  private carry = '';
  /** a cited span whose markers may continue (`….【a】【b】`) */
  private cited: { text: string; citations: JsonObject[]; urls: Set<string> } | null = null;

  constructor(
    private readonly nextIndex: () => number,
    private readonly source: (id: string) => WebSearchSource | undefined,
  ) {}

  text(s: string): CanonicalEvent[] {
    const out: CanonicalEvent[] = [];
    this.pending += s;
    if (this.cited !== null && /\S/.test(this.pending)) out.push(...this.emitCited());
    let safe = citedSpan(this.pending)[0];
    if (safe === 0 && this.pending.length > MAX_PENDING) safe = Math.max(0, this.pending.search(/\s\S*$/));
    if (safe > 0) {
      out.push(...this.plain(this.pending.slice(0, safe)));
      this.pending = this.pending.slice(safe);
    }
    return out;
  }

  pieces(pieces: ScanPiece[]): CanonicalEvent[] {
    const out: CanonicalEvent[] = [];
    for (const p of pieces) out.push(...('text' in p ? this.text(p.text) : this.cite(p.cite)));
    return out;
  }

  /** Another event on this text block (an upstream's own citation): after all text so far, in a plain block. */
  other(ev: Extract<CanonicalEvent, { index: number }>): CanonicalEvent[] {
    const out = this.drain();
    if (ev.type === 'url-citation') return out;
    if (this.open === null) out.push(...this.openPlain());
    out.push({ ...ev, index: this.open! });
    return out;
  }

  /** The block ended: everything still held goes out, the open block closes. */
  end(rest: string): CanonicalEvent[] {
    const out = rest === '' ? [] : this.text(rest);
    out.push(...this.drain());
    if (this.open !== null) out.push({ type: 'block-stop', index: this.open });
    this.open = null;
    this.carry = '';
    return out;
  }

  private drain(): CanonicalEvent[] {
    const out = this.cited !== null ? this.emitCited() : [];
    if (this.pending !== '') out.push(...this.plain(this.pending));
    this.pending = '';
    return out;
  }

  private cite(id: string): CanonicalEvent[] {
    const src = this.source(id)!;
    const [s, e] = citedSpan(this.pending);
    if (s === e) {
      // nothing since the previous marker: the same span, one more source (nothing at all: no citation)
      if (this.cited !== null && !this.cited.urls.has(src.url)) {
        this.cited.citations.push(resultLocation(src));
        this.cited.urls.add(src.url);
      }
      return [];
    }
    const out = this.plain(this.pending.slice(0, s));
    if (this.open !== null) out.push({ type: 'block-stop', index: this.open });
    this.open = null;
    this.cited = { text: this.carry + this.pending.slice(s, e), citations: [resultLocation(src)], urls: new Set([src.url]) };
    this.carry = '';
    this.pending = this.pending.slice(e);
    return out;
  }

  private emitCited(): CanonicalEvent[] {
    const c = this.cited!;
    this.cited = null;
    const index = this.nextIndex();
    return [
      { type: 'block-start', index, block: { kind: 'text', text: '', citations: [] } },
      ...c.citations.map((citation): CanonicalEvent => ({ type: 'citation-delta', index, citation })),
      { type: 'text-delta', index, text: c.text },
      { type: 'block-stop', index },
    ];
  }

  private plain(text: string): CanonicalEvent[] {
    if (text === '') return [];
    if (this.open === null && !/\S/.test(text)) {
      this.carry += text;
      return [];
    }
    const out = this.open === null ? this.openPlain() : [];
    out.push({ type: 'text-delta', index: this.open!, text: this.carry + text });
    this.carry = '';
    return out;
  }

  private openPlain(): CanonicalEvent[] {
    this.open = this.nextIndex();
    return [{ type: 'block-start', index: this.open, block: { kind: 'text', text: '' } }];
  }
}
