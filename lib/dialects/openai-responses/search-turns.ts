// Web search run by the gateway for a Responses client (decisions §11), in this dialect's wire
// shapes: the hosted `web_search` / `web_search_preview` tools become one function tool the upstream
// model can call, and each round of the loop is replayed as input items: the model's text as an
// assistant message, each search call as a `function_call` and its result as a `function_call_output`.
// Signed reasoning goes back as the `reasoning` item a Responses client would send (an OpenAI
// item restored from its signature, Claude's thinking as `anthropic-thinking:` encrypted content),
// so a reasoning model's tool round trip stays whole on every upstream.
import type { JsonObject, JsonValue } from '../../chunks.js';
import type { SearchFunction, SearchRoundTurn, SearchTurns } from '../dialect.js';
import { isChatReasoningSignature, isResponsesSignature, reasoningInputItem } from '../../translate/reasoning-state.js';
import { encodeAnthropicThinking } from './client-state.js';

const WEB_SEARCH_TOOL = /^web_search(?:_preview)?(?:_\d{4}_\d{2}_\d{2})?$/;

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function isHostedSearch(t: JsonValue): boolean {
  return isObject(t) && typeof t.type === 'string' && WEB_SEARCH_TOOL.test(t.type);
}

function toolsOf(body: JsonObject): JsonValue[] {
  return Array.isArray(body.tools) ? body.tools : [];
}

/** whether a client tool (or a namespace member, by its own name) is already called `name` */
function taken(tools: readonly JsonValue[], name: string): boolean {
  return tools.some((t) => isObject(t) && ((t.name === name && !isHostedSearch(t)) || (t.type === 'namespace' && taken(Array.isArray(t.tools) ? t.tools : [], name))));
}

/**
 * A `web_search_call` item sent back in history (Codex sends every output item back) was a search the
 * gateway ran, since it runs every Responses search: the upstream sees it as the call of the function
 * that stands in for the hosted tool, with what the item still says (the query and the sources' URLs;
 * the snippets were never in it), so no upstream meets an item it did not make.
 */
function pastSearchAsCall(item: JsonValue, fn: SearchFunction): JsonValue[] {
  if (!isObject(item) || item.type !== 'web_search_call') return [item];
  const action = isObject(item.action) ? item.action : {};
  const query = typeof action.query === 'string' ? action.query : '';
  const urls = (Array.isArray(action.sources) ? action.sources : []).flatMap((s) => (isObject(s) && typeof s.url === 'string' ? [s.url] : []));
  const callId = typeof item.id === 'string' ? item.id : `ws_history_${query.length}`;
  const output = urls.length > 0 ? `[web_search result] query: ${query}\nsources:\n${urls.join('\n')}` : `[web_search result] query: ${query}\nno sources`;
  return [
    { type: 'function_call', call_id: callId, name: fn.name, arguments: JSON.stringify({ query }) },
    { type: 'function_call_output', call_id: callId, output },
  ];
}

function offer(body: JsonObject, fn: SearchFunction): JsonObject | null {
  const tools = toolsOf(body);
  if (taken(tools, fn.name)) return null;
  const kept = tools.filter((t) => !isHostedSearch(t));
  const out: JsonObject = { ...body, tools: [...kept, { type: 'function', name: fn.name, description: fn.description, parameters: fn.parameters, strict: false }] };
  if (Array.isArray(body.input) && body.input.some((i) => isObject(i) && i.type === 'web_search_call')) {
    out.input = body.input.flatMap((i) => pastSearchAsCall(i, fn));
  }
  // choosing the hosted tool now chooses the function that stands in for it
  if (isObject(body.tool_choice) && typeof body.tool_choice.type === 'string' && WEB_SEARCH_TOOL.test(body.tool_choice.type)) {
    out.tool_choice = { type: 'function', name: fn.name };
  }
  return out;
}

/** The reasoning input item of a signed thinking block, or null where none can be sent back. */
function reasoningItem(thinking: string, signature: string): JsonObject | null {
  if (isResponsesSignature(signature)) return reasoningInputItem(thinking, signature);
  if (signature === '' || isChatReasoningSignature(signature)) return null;
  return { type: 'reasoning', summary: [{ type: 'summary_text', text: thinking }], encrypted_content: encodeAnthropicThinking({ type: 'thinking', thinking, signature }) };
}

function append(body: JsonObject, fn: SearchFunction, round: SearchRoundTurn): JsonObject {
  const input: JsonValue[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? [...body.input] : [];
  for (const t of round.thinking) {
    const item = reasoningItem(t.thinking, t.signature);
    if (item !== null) input.push(item);
  }
  if (round.text !== '') input.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: round.text, annotations: [] }] });
  for (const call of round.calls) input.push({ type: 'function_call', call_id: call.id, name: fn.name, arguments: call.argsJson || '{}' });
  for (const call of round.calls) input.push({ type: 'function_call_output', call_id: call.id, output: call.result });
  return { ...body, input };
}

export const responsesSearchTurns: SearchTurns = {
  // every Responses web search is the gateway's (decisions §11), whatever the deployment
  hostedNatively: false,
  citationStyle: 'spans',
  hostedSearches: (body) => toolsOf(body).filter(isHostedSearch).length,
  offer,
  append,
};
