// A search the gateway ran (decisions §11) as a Messages client sees it: a `server_tool_use` block
// (`name: web_search`, `input: {query}`) and its `web_search_tool_result` block, as Anthropic's hosted
// tool answers. What Anthropic encrypts, the gateway seals (lib/search/seal.ts): each result's
// `encrypted_content` holds its title, URL, snippet and date; a citation's `encrypted_index` the cited
// result. A later turn that sends them back is checked and replayed from them, to any upstream.
import type { JsonObject, WebSearchCall } from '../../chunks.js';
import { createSealer, type Sealer } from '../../search/seal.js';

/** How the ids of the gateway's `server_tool_use` blocks start (Anthropic's own: `srvtoolu_01…`). */
export const GATEWAY_USE_PREFIX = 'srvtoolu_gws_';

/** `srvtoolu_gws_…` from the gateway's call id (Anthropic's id pattern: letters, digits, `_`). */
export function serverToolUseId(callId: string): string {
  return GATEWAY_USE_PREFIX + callId.replace(/[^a-zA-Z0-9_]/g, '_');
}

export interface WebSearchWireBlocks {
  use: JsonObject;
  result: JsonObject;
}

export function webSearchBlocks(call: WebSearchCall, sealer: Sealer | undefined): WebSearchWireBlocks {
  const s = sealer ?? createSealer(undefined);
  const id = serverToolUseId(call.id);
  const use: JsonObject = { type: 'server_tool_use', id, name: 'web_search', input: { query: call.query } };
  const content = call.status === 'failed'
    ? { type: 'web_search_tool_result_error', error_code: call.errorCode ?? 'unavailable' }
    : call.sources.map((src): JsonObject => ({
      type: 'web_search_result',
      title: src.title,
      url: src.url,
      encrypted_content: s.seal('web_search_result', { id: src.id, url: src.url, title: src.title, snippet: src.snippet, ...(src.published ? { published: src.published } : {}) }),
      page_age: src.published ?? null,
    }));
  return { use, result: { type: 'web_search_tool_result', tool_use_id: id, content } };
}

/** A result id (lib/search/normalise.ts): what the rewriter puts where the sealed index goes. */
const RESULT_ID = /^ws_[a-z2-7]{10}$/;

/**
 * A gateway citation (the citation rewriter's `web_search_result_location`, whose `encrypted_index`
 * is the result id) with its index sealed; any other citation unchanged.
 */
export function sealedCitation(citation: JsonObject, sealer: Sealer | undefined): JsonObject {
  const index = citation.encrypted_index;
  if (citation.type !== 'web_search_result_location' || typeof index !== 'string' || !RESULT_ID.test(index)) return citation;
  const s = sealer ?? createSealer(undefined);
  const sealed = s.seal('web_search_result_location', { id: index, url: citation.url ?? null, title: citation.title ?? null, cited_text: citation.cited_text ?? null });
  return { ...citation, encrypted_index: sealed };
}
