// GET /v1/mcp_servers: managed MCP servers are not offered, so the list is always empty. The query
// rules are checked exactly: `limit` once, an integer 1–1000; an optional non-empty `page` cursor of
// at most 2,048 characters; nothing else, nothing repeated.
import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../context.js';
import { errors } from '../errors/index.js';

const BODY = JSON.stringify({ data: [], next_page: null });

export function checkMcpQuery(query: URLSearchParams): void {
  const seen = new Set<string>();
  for (const [name] of query) {
    if (name !== 'limit' && name !== 'page') throw errors.mcpQueryUnknown(name);
    if (seen.has(name)) throw errors.mcpQueryRepeated(name);
    seen.add(name);
  }
  const limit = query.get('limit');
  if (limit === null) throw errors.mcpLimitMissing();
  if (!/^[1-9]\d{0,3}$/.test(limit) || Number(limit) > 1000) throw errors.mcpLimitInvalid(limit);
  const page = query.get('page');
  if (page !== null && (page.length === 0 || page.length > 2048)) throw errors.mcpPageInvalid();
}

export function listMcpServers(ctx: RequestContext, res: ServerResponse): void {
  checkMcpQuery(ctx.query);
  res.writeHead(200, { ...ctx.responseHeaders, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(BODY)) });
  res.end(BODY);
}
