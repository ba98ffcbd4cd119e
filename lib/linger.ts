// Lingering close (RFC 9112 §9.6) for an answer sent before the request body was read: a 413 or a
// refused upload while the client is still sending. node:http closes a `connection: close` socket as
// soon as the answer is flushed; request bytes still arriving then meet a closed socket, the kernel
// answers them with a reset, and the client can see EPIPE or ECONNRESET before it has read the answer
// (and retry a request that can never pass). Instead the gateway sends FIN, keeps reading and dropping
// what the client still sends, and closes once the client closes its side or after `LINGER_MS`.
import type { Socket } from 'node:net';

/** How long a refused client may keep sending before the connection is cut. */
export const LINGER_MS = 2_000;

/** Make node:http's close of this socket (after a `connection: close` answer) a lingering one. */
export function lingerOnClose(socket: Socket | null, ms = LINGER_MS): void {
  if (socket === null || socket.destroyed) return;
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end(); // FIN after the answer; the read side stays open (allowHalfOpen)
    if (this.destroyed) return;
    const cut = setTimeout(() => this.destroy(), ms).unref();
    this.once('close', () => clearTimeout(cut));
    this.resume(); // what arrives goes to node:http's parser and the dumped request: dropped
  };
}
