// A search the gateway ran and the citations of its answer (decisions §11) as a Responses client sees
// them: one completed `web_search_call` item per billed search (a search that returned no source, failed
// or was refused costs nothing and shows no item: the spec's "one completed item per billed search";
// the model's answer says what it could not find), announced with OpenAI's event sequence
// (output_item.added in_progress → web_search_call.in_progress → .searching → .completed →
// output_item.done), and `url_citation` annotations whose indexes count code points of the text.
import type { JsonObject, UrlCitation, WebSearchCall } from '../../chunks.js';
import type { EmitEvent } from './client-encode-items.js';

/** The completed item: `action.sources` lists every URL the backend returned, in its order. */
export function webSearchItem(id: string, call: WebSearchCall): JsonObject {
  return {
    id,
    type: 'web_search_call',
    status: 'completed',
    action: { type: 'search', query: call.query, queries: [call.query], sources: call.sources.map((s) => ({ type: 'url', url: s.url })) },
  };
}

/** Writes the item's events; false when the search shows no item (not billed). */
export function emitWebSearch(emit: EmitEvent, out: number, id: string, call: WebSearchCall): JsonObject | undefined {
  if (!call.billed) return undefined;
  emit('response.output_item.added', { output_index: out, item: { id, type: 'web_search_call', status: 'in_progress' } });
  for (const phase of ['in_progress', 'searching', 'completed']) emit(`response.web_search_call.${phase}`, { output_index: out, item_id: id });
  const item = webSearchItem(id, call);
  emit('response.output_item.done', { output_index: out, item });
  return item;
}

export function urlCitationAnnotation(c: UrlCitation): JsonObject {
  return { type: 'url_citation', start_index: c.start, end_index: c.end, url: c.url, title: c.title };
}
