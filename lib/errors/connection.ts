// The connection and the request as HTTP: timeouts, Node's own parse errors, the request target and
// `Host`, and the memory bound across request bodies (lib/body-budget.ts).
import { defineError } from '../errors.js';

const MiB = 1024 * 1024;

function bytesText(n: number): string {
  return Number.isInteger(n / MiB) ? `${n / MiB} MiB` : `${n} bytes`;
}

export const connectionErrors = {
  headersTimeout: defineError('GW_ERR_REQUEST_TIMEOUT', (ms: number) => `The request line and headers did not arrive within ${ms / 1000} seconds (\`connections.headersTimeoutMs\` in the gateway config); the connection is closed. Nothing was processed.`),
  /** the body came slower than the minimum rate: `received` bytes in `elapsedMs` */
  bodyTooSlow: defineError(
    'GW_ERR_REQUEST_TIMEOUT',
    (received: number, elapsedMs: number, graceMs: number, minRate: number) =>
      `The request body arrived too slowly (${received} bytes in ${(elapsedMs / 1000).toFixed(1)} seconds; a body may take ${graceMs / 1000} seconds plus one second per ${minRate} bytes, \`connections.bodyGraceMs\` and \`connections.bodyMinBytesPerSecond\` in the gateway config); the connection is closed. Nothing was processed.`,
  ),
  headersTooLarge: defineError('GW_ERR_HEADERS_TOO_LARGE', () => 'The request line and headers are too large; send fewer or shorter headers. The connection is closed. Nothing was processed.'),
  /** Node's HTTP parser refused the bytes (`code`: its HPE_* code) */
  requestMalformed: defineError('GW_ERR_REQUEST_INVALID', (code: string) => `The request is not valid HTTP/1.1 (${code}); the connection is closed. Nothing was processed.`),
  /** absolute-form (`http://host/path`), authority-form, asterisk-form, or a path starting with `//` */
  targetNotOriginForm: defineError('GW_ERR_REQUEST_INVALID', (target: string) => `The request target ${JSON.stringify(target.length > 80 ? `${target.slice(0, 80)}...` : target)} is not a path; send the path alone, such as \`POST /v1/messages\` (the gateway is not a proxy). Nothing was processed.`),
  hostMissing: defineError('GW_ERR_HEADER_INVALID', () => 'host: the header is required in HTTP/1.1 (RFC 9112); send it exactly once.', { param: 'host' }),
  hostRepeated: defineError('GW_ERR_HEADER_INVALID', () => 'host: the header appears more than once (RFC 9112 requires a 400); send it exactly once.', { param: 'host' }),
  /** the budget of request bodies in memory is used up */
  bodyBudgetFull: defineError(
    'GW_ERR_UNAVAILABLE',
    (limit: number, retryAfter: number) => `The gateway holds ${bytesText(limit)} of request bodies already (\`maxBufferedBodyBytes\` in the gateway config); retry in ${retryAfter} second${retryAfter === 1 ? '' : 's'}. Nothing was processed.`,
    (_limit, retryAfter) => ({ headers: { 'retry-after': String(retryAfter) } }),
  ),
};
