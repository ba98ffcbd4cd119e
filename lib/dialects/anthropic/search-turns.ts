// Web search run by the gateway for a Messages client (decisions §11), in this dialect's wire shapes:
// the hosted `web_search_*` tools become one client tool the upstream model can call, and each round
// of the loop is replayed as an assistant turn (signed thinking, text, `tool_use` blocks) followed by
// a user turn of `tool_result` blocks, as a Messages conversation carries any tool round trip.
import type { JsonObject, JsonValue } from '../../chunks.js';
import type { SearchFunction, SearchRoundTurn, SearchTurns } from '../dialect.js';
import { HOSTED_TOOL_TYPES } from './validate-hosted-tools.js';

const isObject = (v: JsonValue | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function isHostedSearch(t: JsonValue): boolean {
  return isObject(t) && typeof t.type === 'string' && HOSTED_TOOL_TYPES.get(t.type) === 'web_search';
}

function toolsOf(body: JsonObject): JsonValue[] {
  return Array.isArray(body.tools) ? body.tools : [];
}

function offer(body: JsonObject, fn: SearchFunction): JsonObject | null {
  const tools = toolsOf(body);
  // a client tool already named so: its calls are the client's, never the gateway's
  if (tools.some((t) => isObject(t) && t.name === fn.name && !isHostedSearch(t))) return null;
  const kept = tools.filter((t) => !isHostedSearch(t));
  const out: JsonObject = { ...body, tools: [...kept, { name: fn.name, description: fn.description, input_schema: fn.parameters }] };
  // a choice of the hosted tool by name now names the function, which has the same name
  return out;
}

function append(body: JsonObject, fn: SearchFunction, round: SearchRoundTurn): JsonObject {
  const assistant: JsonValue[] = [];
  for (const t of round.thinking) assistant.push({ type: 'thinking', thinking: t.thinking, signature: t.signature });
  if (round.text !== '') assistant.push({ type: 'text', text: round.text });
  const results: JsonValue[] = [];
  for (const call of round.calls) {
    let input: JsonValue = {};
    try {
      const parsed = JSON.parse(call.argsJson || '{}') as JsonValue;
      if (isObject(parsed)) input = parsed;
    } catch {
      // the call's arguments were not JSON: replayed as none, its result says why
    }
    assistant.push({ type: 'tool_use', id: call.id, name: fn.name, input });
    results.push({ type: 'tool_result', tool_use_id: call.id, content: call.result, ...(call.isError ? { is_error: true } : {}) });
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return { ...body, messages: [...messages, { role: 'assistant', content: assistant }, { role: 'user', content: results }] };
}

export const anthropicSearchTurns: SearchTurns = {
  hostedNatively: true,
  citationStyle: 'blocks',
  hostedSearches: (body) => toolsOf(body).filter(isHostedSearch).length,
  offer,
  append,
};
