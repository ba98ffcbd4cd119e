// Lingering close (RFC 9112 §9.6) for an answer sent before the request body was read: a 413, a 401
// or any refusal while the client is still sending. node:http closes a `connection: close` socket as
// soon as the answer is flushed; request bytes still arriving then meet a closed socket, the kernel
// answers them with a reset, and the client can see EPIPE or ECONNRESET before it has read the answer
// (and retry a request that can never pass). Instead the gateway sends FIN, keeps reading and dropping
// what the client still sends, and closes once the client closes its side or after `ms`
// (`connections.refusedBodyDrainMs`): a refused body is drained only briefly, never to its end.
import { Socket } from 'node:net';

/** How long a refused client may keep sending before the connection is cut (the default of `refusedBodyDrainMs`). */
export const LINGER_MS = 2_000;

const plainDestroySoon = Socket.prototype.destroySoon;

/**
 * Make node:http's close of this socket (after a `connection: close` answer) a lingering one while
 * `unread()` says request bytes may still be coming; otherwise it closes as usual.
 */
export function lingerOnClose(socket: Socket | null, ms = LINGER_MS, unread: () => boolean = () => true): void {
  if (socket === null || socket.destroyed) return;
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (!unread()) return plainDestroySoon.call(this);
    if (this.writable) this.end(); // FIN after the answer; the read side stays open (allowHalfOpen)
    if (this.destroyed) return;
    const cut = setTimeout(() => this.destroy(), ms).unref();
    this.once('close', () => clearTimeout(cut));
    this.resume(); // what arrives goes to node:http's parser and the dumped request: dropped
  };
}

/** refusals that never read the rest of the body, whatever its size: it is too large, too slow, or no memory is left for it */
const CUT_OFF = new Set(['GW_ERR_BODY_TOO_LARGE', 'GW_ERR_FILE_TOO_LARGE', 'GW_ERR_REQUEST_TIMEOUT', 'GW_ERR_UNAVAILABLE']);

/**
 * A request refused before its body was read: does its connection close (`connection: close`, then
 * a lingering close)? Yes when the refusal cuts the body off, or the unread body is chunked or
 * declared larger than `drainBytes`; a small declared body is read and dropped (within the drain
 * time, see lib/server.ts) and the connection kept.
 */
export function closesAfterRefusal(code: string, headers: { 'content-length'?: string | undefined; 'transfer-encoding'?: string | undefined }, drainBytes: number): boolean {
  if (CUT_OFF.has(code)) return true;
  const declared = headers['content-length'];
  if (headers['transfer-encoding'] !== undefined || declared === undefined || !/^\d+$/.test(declared)) return true;
  return Number(declared) > drainBytes;
}
