// What the search loop tells the upstream model (decisions §11): the `web_search(query)` function it
// is offered in place of a hosted search tool, and the text of each tool result: the citation
// instructions, then every result under its id (the model cites `【id】`), or why there is none.
// Result text was cleaned by normalise.ts (no markup, no marker characters), so nothing a page says
// can pose as one of these lines' structure or as a citation.
import type { SearchFunction } from '../dialects/index.js';
import type { WebSearchSource } from '../chunks.js';
import { citationInstructions } from './citations.js';

/** The first line of every result the loop feeds back (the simulated model counts them). */
export const RESULT_HEADER = '[web_search result]';

/** A query longer than this is refused (`query_too_long`) without calling a backend. */
export const MAX_QUERY_CHARS = 400;

export const SEARCH_FUNCTION: SearchFunction = {
  name: 'web_search',
  description:
    'Search the web for current information. Returns numbered results, each with an id, title, URL and snippet. ' +
    'Call it when the answer depends on facts you may not know or that may have changed.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'the search query, as you would type it into a search engine' } },
    required: ['query'],
    additionalProperties: false,
  },
};

/** Why a search gave the model no results (the codes Messages' `web_search_tool_result_error` uses). */
export type NoResults = 'empty' | 'unavailable' | 'too_many_requests' | 'max_uses_exceeded' | 'query_too_long' | 'invalid_input';

const WHY: Record<Exclude<NoResults, 'empty'>, string> = {
  unavailable: 'The search failed: no search engine could be reached. Answer from what you already know, and say that the search failed.',
  too_many_requests: 'The search failed: the search engines are rate limited. Answer from what you already know, and say that the search failed.',
  max_uses_exceeded: 'Not searched: this request has used all the searches it may run. Answer from the results you already have.',
  query_too_long: `Not searched: the query is longer than ${MAX_QUERY_CHARS} characters. Use a shorter query, or answer from what you have.`,
  invalid_input: 'Not searched: the call needs a "query" string argument.',
};

function quoted(query: string): string {
  return JSON.stringify(query.slice(0, MAX_QUERY_CHARS));
}

/** The tool result of one search: its sources under their ids, or why it has none. */
export function resultText(query: string, sources: readonly WebSearchSource[], why: NoResults | null, lastRound: boolean): string {
  const lines = [`${RESULT_HEADER} query: ${quoted(query)}`];
  if (why === null) {
    lines.push(citationInstructions(), '');
    sources.forEach((s, i) => {
      lines.push(`${i + 1}. id: ${s.id}`, `   title: ${s.title}`, `   url: ${s.url}`);
      if (s.published !== undefined) lines.push(`   published: ${s.published}`);
      lines.push(`   snippet: ${s.snippet}`, '');
    });
  } else if (why === 'empty') {
    lines.push('No results were found. Try other words, or answer from what you already know.');
  } else {
    lines.push(WHY[why]);
  }
  if (lastRound) lines.push('No further searches can run for this request: answer now.');
  return lines.join('\n');
}

/**
 * An upper bound of the tokens one search's result adds to the model's input: every character
 * counted as a token (a tokenizer never does worse on text), URLs up to 2,048 characters.
 */
export function feedTokenBound(ws: { maxResults: number; snippetChars: number }): number {
  const perSource = 24 + 200 + 2048 + 40 + ws.snippetChars;
  return 100 + citationInstructions().length + MAX_QUERY_CHARS + ws.maxResults * perSource;
}
