// The request as sent: body bytes, query string, method and path (headers: ./headers.ts).
import { defineError } from '../errors.js';

/** an mcp_servers query rule, and the query that works */
function mcpQuery(name: string, problem: string): string {
  return `${name}: ${problem} Send GET /v1/mcp_servers?limit=1000 (optionally with page=<cursor>).`;
}

export const requestErrors = {
  bodyEmpty: defineError('GW_ERR_BODY_INVALID_JSON', () => 'The request body is empty; a JSON object is required. Nothing was processed.'),
  /** `err.path`: where the JSON broke, when known (a JsonSyntaxError) */
  bodyNotJson: defineError('GW_ERR_BODY_INVALID_JSON', (err: Error & { path: string }) => `The request body is not valid JSON: ${err.message}. Nothing was processed.`, (err) => ({ param: err.path || undefined, cause: err })),
  bodyTooLarge: defineError('GW_ERR_BODY_TOO_LARGE', (limit: number) => `The request body exceeds the maximum of ${limit} bytes${Number.isInteger(limit / 1048576) ? ` (${limit / 1048576} MiB)` : ''}, set by \`maxBodyBytes\` in the gateway config. Nothing was processed.`),
  multipartMalformed: defineError('GW_ERR_REQUEST_INVALID', (cause: unknown) => `The request body is not valid multipart/form-data (${cause instanceof Error ? cause.message : String(cause)}). Send the audio as a multipart/form-data upload with a "file" part.`, (cause) => ({ cause })),
  /** POST /v1/messages accepts only `?beta=true` */
  messagesQueryUnknown: defineError('GW_ERR_QUERY_INVALID', (name: string) => `${name}: unknown query parameter; only \`beta=true\` is accepted here`, (name) => ({ param: name })),
  messagesBetaRepeated: defineError('GW_ERR_QUERY_INVALID', () => 'beta: the query parameter appears more than once; send `beta=true` at most once', { param: 'beta' }),
  messagesBetaNotTrue: defineError('GW_ERR_QUERY_INVALID', () => 'beta: the query parameter must be `true` when given', { param: 'beta' }),
  modelsQueryInteger: defineError('GW_ERR_QUERY_INVALID', (name: string, min: number, max: number) => `${name}: must appear once, as an integer from ${min} to ${max}.`, (name) => ({ param: name })),
  modelsQueryUnknown: defineError('GW_ERR_QUERY_INVALID', (name: string) => `${name}: unknown query parameter; GET /v1/models accepts limit, after_id and before_id.`, (name) => ({ param: name })),
  // GET /v1/mcp_servers: `limit` once (1 to 1000), an optional `page` cursor, nothing else
  mcpQueryUnknown: defineError('GW_ERR_QUERY_INVALID', (name: string) => mcpQuery(name, 'unknown query parameter; only limit and page are accepted.'), (name) => ({ param: name })),
  mcpQueryRepeated: defineError('GW_ERR_QUERY_INVALID', (name: string) => mcpQuery(name, 'must appear at most once.'), (name) => ({ param: name })),
  mcpLimitMissing: defineError('GW_ERR_QUERY_INVALID', () => mcpQuery('limit', 'is required.'), { param: 'limit' }),
  mcpLimitInvalid: defineError('GW_ERR_QUERY_INVALID', (value: string) => mcpQuery('limit', `must be an integer from 1 to 1000, got "${value}".`), { param: 'limit' }),
  mcpPageInvalid: defineError('GW_ERR_QUERY_INVALID', () => mcpQuery('page', 'must be a non-empty cursor of at most 2,048 characters.'), { param: 'page' }),
  routeNotFound: defineError('GW_ERR_NOT_FOUND', (method: string, path: string) => `No route for ${method} ${path}. The gateway serves /v1/messages, /v1/chat/completions, /v1/responses, /v1/audio/transcriptions and /v1/models.`),
  methodNotAllowed: defineError('GW_ERR_METHOD_NOT_ALLOWED', (method: string, allowed: readonly string[]) => `${method} is not allowed here; use ${allowed.join(' or ')}.`, (_m, allowed) => ({ headers: { allow: allowed.join(', ') } })),
  storedResponsesUnsupported: defineError('GW_ERR_STORED_RESPONSES_UNSUPPORTED', () => 'This gateway is stateless: responses are never stored, so they cannot be retrieved, listed, cancelled, deleted or compacted. Send the whole conversation in `input` on every POST /v1/responses.'),
};
