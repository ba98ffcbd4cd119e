// The citation rewriter (decisions §11): the model cites a result by writing `【ws_…】` right after the
// sentence it supports; this transform over the whole answer's canonical events removes the markers
// from the text the client receives and turns each into a citation of the text before it (that
// sentence: the text since the previous marker or sentence end, white space trimmed), only for ids the
// answer's searches returned. A marker that never closes or names an unknown id stays as text.
// 'spans' (Responses) adds `url-citation` events with code-point spans of the block's text; 'blocks'
// (Messages) gives each cited span its own text block with `web_search_result_location` citations.
import type { CanonicalEvent, WebSearchSource } from '../chunks.js';
import { CITE_CLOSE, CITE_OPEN, MarkerScanner, citedSpan, codePoints, type ScanPiece } from './cite-scan.js';
import { BlockSplitter } from './cite-blocks.js';

export { CITE_CLOSE, CITE_OPEN };

/** The instruction the search loop adds when it feeds results back to the model. */
export function citationInstructions(): string {
  return (
    `Cite the search results you use. Right after each sentence a result supports, write that result's id ` +
    `between ${CITE_OPEN} and ${CITE_CLOSE}, for example: "Paris is the capital of France.${CITE_OPEN}ws_abcdefghij${CITE_CLOSE}". ` +
    `Several results for one sentence: one marker each, one after the other. Use only ids given with the ` +
    `results, and never write a URL as a citation.`
  );
}

export interface CitationRewriterOptions {
  /** the source a result id names, when a search of this answer returned it */
  source: (id: string) => WebSearchSource | undefined;
  /** 'spans': `url-citation` events (Responses); 'blocks': cited spans as their own text blocks (Messages) */
  style: 'spans' | 'blocks';
}

export interface CitationRewriter {
  push(ev: CanonicalEvent): CanonicalEvent[];
  end(): CanonicalEvent[];
}

export function createCitationRewriter(opts: CitationRewriterOptions): CitationRewriter {
  const known = (id: string): boolean => opts.source(id) !== undefined;
  return opts.style === 'spans' ? new SpanRewriter(opts.source, known) : new BlockRewriter(opts.source, known);
}

/** One text block's state in 'spans' style: what the client has of it, and the text since the last marker. */
interface SpanText {
  scanner: MarkerScanner;
  /** code points the client has received in this block */
  pos: number;
  /** the text since the previous marker, and where it starts */
  tail: string;
  tailStart: number;
  /** the previous citation's span, for markers that follow it with nothing between */
  last: [number, number] | null;
  /** urls already cited on `last`, so a repeated marker is not a repeated annotation */
  lastUrls: Set<string>;
}

class SpanRewriter implements CitationRewriter {
  private readonly texts = new Map<number, SpanText>();

  constructor(
    private readonly source: (id: string) => WebSearchSource | undefined,
    private readonly known: (id: string) => boolean,
  ) {}

  push(ev: CanonicalEvent): CanonicalEvent[] {
    if (ev.type === 'block-start' && ev.block.kind === 'text') {
      const t: SpanText = { scanner: new MarkerScanner(this.known), pos: 0, tail: '', tailStart: 0, last: null, lastUrls: new Set() };
      this.texts.set(ev.index, t);
      if (ev.block.text === '') return [ev];
      // a whole block (non-streaming upstreams): its text is scanned as a first delta
      return [{ ...ev, block: { ...ev.block, text: '' } }, ...this.pieces(ev.index, t, t.scanner.feed(ev.block.text))];
    }
    const t = 'index' in ev ? this.texts.get(ev.index) : undefined;
    if (t === undefined) return [ev];
    if (ev.type === 'text-delta') return this.pieces(ev.index, t, t.scanner.feed(ev.text));
    if (ev.type === 'block-stop') {
      this.texts.delete(ev.index);
      const rest = t.scanner.flush();
      return [...this.pieces(ev.index, t, rest === '' ? [] : [{ text: rest }]), ev];
    }
    return [ev];
  }

  end(): CanonicalEvent[] {
    const out: CanonicalEvent[] = [];
    for (const [index, t] of this.texts) {
      const rest = t.scanner.flush();
      if (rest !== '') out.push(...this.pieces(index, t, [{ text: rest }]));
    }
    this.texts.clear();
    return out;
  }

  private pieces(index: number, t: SpanText, pieces: ScanPiece[]): CanonicalEvent[] {
    const out: CanonicalEvent[] = [];
    for (const piece of pieces) {
      if ('text' in piece) {
        out.push({ type: 'text-delta', index, text: piece.text });
        t.pos += codePoints(piece.text);
        t.tail += piece.text;
        continue;
      }
      const src = this.source(piece.cite)!;
      const [s, e] = citedSpan(t.tail);
      if (s < e) {
        const start = t.tailStart + codePoints(t.tail.slice(0, s));
        t.last = [start, start + codePoints(t.tail.slice(s, e))];
        t.lastUrls = new Set();
      }
      t.tail = '';
      t.tailStart = t.pos;
      if (t.last === null || t.lastUrls.has(src.url)) continue; // nothing before it to cite, or cited already
      t.lastUrls.add(src.url);
      out.push({ type: 'url-citation', index, citation: { url: src.url, title: src.title, start: t.last[0], end: t.last[1], sourceId: src.id } });
    }
    return out;
  }
}

/** 'blocks' style: block indexes renumbered, as text blocks split around cited spans. */
class BlockRewriter implements CitationRewriter {
  private next = 0;
  /** input index → output index, for blocks that are not text */
  private readonly indexes = new Map<number, number>();
  private readonly texts = new Map<number, { scanner: MarkerScanner; splitter: BlockSplitter }>();

  constructor(
    private readonly source: (id: string) => WebSearchSource | undefined,
    private readonly known: (id: string) => boolean,
  ) {}

  push(ev: CanonicalEvent): CanonicalEvent[] {
    if (!('index' in ev)) return [ev];
    if (ev.type === 'block-start') {
      if (ev.block.kind === 'text') {
        const splitter = new BlockSplitter(() => this.next++, this.source);
        const scanner = new MarkerScanner(this.known);
        this.texts.set(ev.index, { scanner, splitter });
        return ev.block.text === '' ? [] : splitter.pieces(scanner.feed(ev.block.text));
      }
      const index = this.next++;
      this.indexes.set(ev.index, index);
      return [renumbered(ev, index)];
    }
    const t = this.texts.get(ev.index);
    if (t !== undefined) {
      if (ev.type === 'text-delta') return t.splitter.pieces(t.scanner.feed(ev.text));
      if (ev.type === 'block-stop') {
        this.texts.delete(ev.index);
        return t.splitter.end(t.scanner.flush());
      }
      return t.splitter.other(ev);
    }
    const index = this.indexes.get(ev.index);
    if (index === undefined) return [ev];
    if (ev.type === 'block-stop') this.indexes.delete(ev.index);
    return [renumbered(ev, index)];
  }

  end(): CanonicalEvent[] {
    const out: CanonicalEvent[] = [];
    for (const t of this.texts.values()) out.push(...t.splitter.end(t.scanner.flush()));
    this.texts.clear();
    return out;
  }
}

/**
 * The event at its new index. A native frame names the old index, so it goes when the index changes
 * (an encoder then writes the event from its canonical fields).
 */
function renumbered<E extends Extract<CanonicalEvent, { index: number }>>(ev: E, index: number): E {
  if (index === ev.index) return ev;
  const { native: _native, ...rest } = ev;
  return { ...rest, index } as E;
}
