// How long a request body may take: `bodyGraceMs` plus one second per `bodyMinBytesPerSecond` bytes
// received so far, so a large upload at a fair rate always has time, and a trickled body (a few
// bytes a second, the slow-loris attack that held descriptors until the gateway starved) is cut
// after the grace period. The bytes are counted on the socket (`bytesRead`), whoever reads them.
// One timer per request, re-armed only when it fires: nothing runs per chunk. The clock stops once
// the request's body is complete; it never limits the response (a long stream).
import type { IncomingMessage } from 'node:http';
import type { ConnectionsConfig } from './config.js';

export interface BodyTimeout {
  received: number;
  elapsedMs: number;
}

/** Start the clock of `req`'s body; `onTimeout` runs at most once. Returns `stop`. */
export function watchBody(req: IncomingMessage, limits: Pick<ConnectionsConfig, 'bodyGraceMs' | 'bodyMinBytesPerSecond'>, onTimeout: (t: BodyTimeout) => void): () => void {
  const socket = req.socket;
  const startedAt = Date.now();
  const bytesAtStart = socket.bytesRead;
  let timer: NodeJS.Timeout | null = null;
  const check = (): void => {
    timer = null;
    if (req.complete || socket.destroyed) return;
    const received = socket.bytesRead - bytesAtStart;
    const deadline = startedAt + limits.bodyGraceMs + (received * 1000) / limits.bodyMinBytesPerSecond;
    const now = Date.now();
    if (now >= deadline) return onTimeout({ received, elapsedMs: now - startedAt });
    timer = setTimeout(check, Math.ceil(deadline - now));
    timer.unref();
  };
  timer = setTimeout(check, limits.bodyGraceMs);
  timer.unref();
  return () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
}
