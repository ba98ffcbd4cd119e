// The admin API's HTTP pieces: the JSON body (bounded, parsed strictly), the JSON answer, and the
// error envelope of the admin contract: `{"error": {message, type, param, code}}`, OpenAI's shape
// (decisions §12), with `param` the exact field path or null.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../errors.js';
import { errors } from '../errors/index.js';
import { parseStrict } from '../json/strict-parse.js';
import { openAiError } from '../openai/errors.js';

/** the largest admin body: the biggest one (a key with a long model list) is a few KiB */
const MAX_BODY_BYTES = 64 * 1024;

/** The body as JSON, or undefined when there is none. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw errors.bodyTooLarge(MAX_BODY_BYTES);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return parseStrict(Buffer.concat(chunks));
  } catch (err) {
    throw errors.bodyNotJson(err as Error & { path: string });
  }
}

export function replyJson(res: ServerResponse, headers: Record<string, string>, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

/** OpenAI's `type` by status. */
function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

export function replyError(res: ServerResponse, headers: Record<string, string>, err: unknown): number {
  const error = GatewayError.from(err);
  const { status, code, message, param } = openAiError(error);
  if (res.headersSent) {
    res.destroy();
    return status;
  }
  replyJson(res, { ...headers, ...error.headers }, status, { error: { message, type: typeOf(status), param: param ?? null, code } });
  return status;
}
