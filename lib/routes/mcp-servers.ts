// GET /v1/mcp_servers: managed MCP servers are not offered, so the list is always empty. The query
// rules are checked exactly: `limit` once, an integer 1–1000; an optional non-empty `page` cursor of
// at most 2,048 characters; nothing else, nothing repeated.
import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../context.js';
import { GatewayError } from '../errors.js';

const BODY = JSON.stringify({ data: [], next_page: null });

function queryError(param: string, message: string): GatewayError {
  return new GatewayError('GW_ERR_QUERY_INVALID', `${param}: ${message} Send GET /v1/mcp_servers?limit=1000 (optionally with page=<cursor>).`, { param });
}

export function checkMcpQuery(query: URLSearchParams): void {
  const seen = new Set<string>();
  for (const [name] of query) {
    if (name !== 'limit' && name !== 'page') throw queryError(name, 'unknown query parameter; only limit and page are accepted.');
    if (seen.has(name)) throw queryError(name, 'must appear at most once.');
    seen.add(name);
  }
  const limit = query.get('limit');
  if (limit === null) throw queryError('limit', 'is required.');
  if (!/^[1-9]\d{0,3}$/.test(limit) || Number(limit) > 1000) throw queryError('limit', `must be an integer from 1 to 1000, got "${limit}".`);
  const page = query.get('page');
  if (page !== null && (page.length === 0 || page.length > 2048)) throw queryError('page', 'must be a non-empty cursor of at most 2,048 characters.');
}

export function listMcpServers(ctx: RequestContext, res: ServerResponse): void {
  checkMcpQuery(ctx.query);
  res.writeHead(200, { ...ctx.responseHeaders, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(BODY)) });
  res.end(BODY);
}
