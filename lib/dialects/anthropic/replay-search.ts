// A later turn that sends back the web-search blocks the gateway wrote (web-search.ts) as history
// (decisions §11). Their sealed values are checked first: one that does not open under this gateway's
// key (changed, or sealed under another `webSearch.sealKey`) is a 400 naming its path. Then they are
// opened into plain assistant text — the query, each result's id, title, URL, date and snippet — so the
// history replays to ANY upstream: a Chat or Responses model reads what was found, and an Anthropic
// deployment never receives gateway blocks posing as its own hosted search (it could not decrypt them).
// The gateway's citations (sealed `encrypted_index`) leave their text blocks the same way; Anthropic's
// own blocks and citations are left as they are.
import type { JsonObject, JsonValue } from '../../chunks.js';
import { invalid } from '../../errors.js';
import { SEAL_PREFIX, type Sealer } from '../../search/seal.js';
import { GATEWAY_USE_PREFIX } from './web-search.js';
import { isObject } from './wire.js';

const RESEND = 'send the block back exactly as the gateway returned it, or leave it out';

/** `messages` with the gateway's search blocks opened into text; the same array when there are none. */
export function openGatewaySearches(messages: JsonValue | undefined, sealer: Sealer): JsonValue | undefined {
  if (!Array.isArray(messages)) return messages;
  let changed = false;
  const out = messages.map((m, i) => {
    if (!isObject(m) || m.role !== 'assistant' || !Array.isArray(m.content)) return m;
    const content = openContent(m.content, `messages[${i}].content`, sealer);
    if (content === m.content) return m;
    changed = true;
    return { ...m, content };
  });
  return changed ? out : messages;
}

function openContent(blocks: JsonValue[], path: string, sealer: Sealer): JsonValue[] {
  let changed = false;
  const queries = new Map<string, string>();
  const out: JsonValue[] = [];
  blocks.forEach((b, j) => {
    const at = `${path}[${j}]`;
    const opened = isObject(b) ? openBlock(b, at, sealer, queries) : undefined;
    if (opened === undefined) {
      out.push(b);
      return;
    }
    changed = true;
    if (opened !== null) out.push(opened);
  });
  return changed ? out : blocks;
}

/** The block as replayable history; undefined: not the gateway's, unchanged; null: dropped. */
function openBlock(b: JsonObject, path: string, sealer: Sealer, queries: Map<string, string>): JsonObject | null | undefined {
  if (b.type === 'server_tool_use' && typeof b.id === 'string' && b.id.startsWith(GATEWAY_USE_PREFIX)) {
    const query = isObject(b.input) && typeof b.input.query === 'string' ? b.input.query : '';
    queries.set(b.id, query);
    return null; // its result block says what was searched
  }
  if (b.type === 'web_search_tool_result' && isGatewayResult(b)) {
    const query = typeof b.tool_use_id === 'string' ? (queries.get(b.tool_use_id) ?? '') : '';
    return { type: 'text', text: resultText(query, b.content, `${path}.content`, sealer) };
  }
  if (b.type === 'text' && Array.isArray(b.citations) && b.citations.some(isGatewayCitation)) {
    b.citations.forEach((c, k) => {
      if (isObject(c) && isGatewayCitation(c) && sealer.open('web_search_result_location', c.encrypted_index as string) === null) {
        throw invalid(`${path}.citations[${k}].encrypted_index`, `was not sealed by this gateway (changed, or sealed under another key); ${RESEND}`);
      }
    });
    const kept = b.citations.filter((c) => !isGatewayCitation(c));
    const { citations: _c, ...rest } = b;
    return kept.length > 0 ? { ...rest, citations: kept } : rest;
  }
  return undefined;
}

function isGatewayResult(b: JsonObject): boolean {
  if (typeof b.tool_use_id === 'string' && b.tool_use_id.startsWith(GATEWAY_USE_PREFIX)) return true;
  return Array.isArray(b.content) && b.content.some((r) => isObject(r) && typeof r.encrypted_content === 'string' && r.encrypted_content.startsWith(SEAL_PREFIX));
}

function isGatewayCitation(c: JsonValue): boolean {
  return isObject(c) && typeof c.encrypted_index === 'string' && c.encrypted_index.startsWith(SEAL_PREFIX);
}

/** What the search found, as text a model reads. */
function resultText(query: string, content: JsonValue | undefined, path: string, sealer: Sealer): string {
  const head = `Web search for ${JSON.stringify(query)}`;
  if (isObject(content)) return `${head} failed (${typeof content.error_code === 'string' ? content.error_code : 'unavailable'}).`;
  if (!Array.isArray(content) || content.length === 0) return `${head}: no results.`;
  const lines = content.map((r, k) => {
    const sealed = isObject(r) ? r.encrypted_content : undefined;
    const src = typeof sealed === 'string' ? sealer.open('web_search_result', sealed) : null;
    if (src === null) throw invalid(`${path}[${k}].encrypted_content`, `was not sealed by this gateway (changed, or sealed under another key); ${RESEND}`);
    const date = typeof src.published === 'string' ? ` (${src.published})` : '';
    return `[${String(src.id)}] ${String(src.title)}${date}\n${String(src.url)}\n${String(src.snippet)}`;
  });
  return `${head}, results:\n\n${lines.join('\n\n')}`;
}
