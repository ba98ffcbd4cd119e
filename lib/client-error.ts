// Node's own refusals in the gateway's envelope: when node:http cannot make a request of the bytes
// (header overflow, malformed HTTP, the headers timeout) it emits `clientError`, and without a
// listener writes a bare 431/400/408 with no body and no request id. The gateway answers instead,
// in the envelope of the endpoint the request line names when it could be read (a Messages path gets
// the Messages envelope), else the OpenAI-style one (most endpoints and both SDK families read it),
// with a request id in that dialect's header, and logs the refusal under the same id. The
// connection then closes: FIN after the answer, and the socket is cut after `lingerMs` if the client
// goes on sending (the parser is broken; nothing after the error is read as a request).
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { newRequestId } from './ids.js';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { DialectName } from './chunks.js';
import { dialects, renderError } from './dialects/index.js';
import type { GatewayError } from './errors.js';
import { errors } from './errors/index.js';
import { matchEndpoint, type Routes } from './endpoints/index.js';

const answered = new WeakSet<Socket>();

/** the error a parse or timeout failure stands for */
function errorFor(code: string | undefined, headersTimeoutMs: number): GatewayError {
  if (code === 'HPE_HEADER_OVERFLOW') return errors.headersTooLarge();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return errors.headersTimeout(headersTimeoutMs);
  return errors.requestMalformed(code ?? 'unknown');
}

const REQUEST_LINE = /^([A-Z]{1,16}) (\/\S*) HTTP\/1\.[01]\r?\n/;

/** The dialect of the request the bytes began: the request in flight, else the request line in the packet, else OpenAI-style. */
function dialectOf(routes: Routes, inFlight: IncomingMessage | undefined, packet: Buffer | undefined): DialectName {
  let method: string | undefined;
  let path: string | undefined;
  let req: Pick<IncomingMessage, 'headers' | 'url'> = { headers: {}, url: '/' };
  if (inFlight !== undefined) {
    req = inFlight;
    method = inFlight.method;
    path = (inFlight.url ?? '/').split('?')[0];
  } else if (packet !== undefined) {
    const line = REQUEST_LINE.exec(packet.subarray(0, 4096).toString('latin1'));
    if (line !== null) {
      method = line[1];
      path = line[2]!.split('?')[0];
      req = { headers: {}, url: line[2] };
    }
  }
  if (method === undefined || path === undefined) return 'openai-chat';
  return matchEndpoint(routes, method, path).dialect(req as IncomingMessage);
}

export interface ClientErrorOptions {
  routes: () => Routes;
  headersTimeoutMs: () => number;
  lingerMs: () => number;
  log: Logger;
}

/** The `clientError` listener of the gateway's server. */
export function clientErrorListener(opts: ClientErrorOptions): (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => void {
  return (err, socket) => {
    // the broken parser reports each later packet again: one answer per connection
    if (answered.has(socket)) return;
    answered.add(socket);
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable || res?.headersSent === true) {
      socket.destroy();
      return;
    }
    const error = errorFor(err.code, opts.headersTimeoutMs());
    const dialect = dialectOf(opts.routes(), res?.req, err.rawPacket);
    const reqId = newRequestId();
    const rendered = renderError(dialect, error, reqId);
    const headers: Record<string, string> = { ...rendered.headers, [dialects[dialect].requestId.header]: reqId, connection: 'close', 'content-length': String(Buffer.byteLength(rendered.body)) };
    let head = `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    opts.log.info({ reqId, status: rendered.status, errorCode: error.code, clientError: err.code }, 'request refused by the HTTP parser');
    socket.end(`${head}\r\n${rendered.body}`);
    const cut = setTimeout(() => socket.destroy(), opts.lingerMs()).unref();
    socket.once('close', () => clearTimeout(cut));
  };
}
