// How long a request body may take: `bodyGraceMs` plus one second per `bodyMinBytesPerSecond` bytes
// received so far, so a large upload at a fair rate always has time, and a trickled body (a few
// bytes a second, the slow-loris attack that held descriptors until the gateway starved) is cut
// after the grace period. The bytes are counted on the socket (`bytesRead`), whoever reads them.
// One timer per request, re-armed only when it fires: nothing runs per chunk. The clock stops once
// the request's body is complete; it never limits the response (a long stream).
// (Arming it later, only for a body still incomplete, was tried: node:http runs the handler, and the
// microtasks after it, before it parses the rest of the read the head came in, so a microtask finds
// every body incomplete; a setImmediate would cost about what the timer does.)
import type { IncomingMessage } from 'node:http';
import type { ConnectionsConfig } from './config.js';

export interface BodyTimeout {
  received: number;
  elapsedMs: number;
}

type Limits = Pick<ConnectionsConfig, 'bodyGraceMs' | 'bodyMinBytesPerSecond'>;

/** The clock of one request's body (a class, its timer given the clock: no closures per request). */
export class BodyClock {
  private readonly startedAt = Date.now();
  private readonly bytesAtStart: number;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limits: Limits,
    private readonly onTimeout: (t: BodyTimeout) => void,
  ) {
    this.bytesAtStart = req.socket.bytesRead;
    this.timer = setTimeout(checkOf, limits.bodyGraceMs, this);
    this.timer.unref();
  }

  /** the body is incomplete: cut it at its deadline, else look again then */
  private check(): void {
    this.timer = null;
    const req = this.req;
    if (this.stopped || req.complete || req.socket.destroyed) return;
    const limits = this.limits;
    const received = req.socket.bytesRead - this.bytesAtStart;
    const deadline = this.startedAt + limits.bodyGraceMs + (received * 1000) / limits.bodyMinBytesPerSecond;
    const now = Date.now();
    if (now >= deadline) {
      this.stopped = true;
      return this.onTimeout({ received, elapsedMs: now - this.startedAt });
    }
    this.timer = setTimeout(checkOf, Math.ceil(deadline - now), this);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** the timer's callback */
  static fire(clock: BodyClock): void {
    clock.check();
  }
}

const checkOf = BodyClock.fire;

/** Start the clock of `req`'s body; `onTimeout` runs at most once. */
export function watchBody(req: IncomingMessage, limits: Limits, onTimeout: (t: BodyTimeout) => void): BodyClock {
  return new BodyClock(req, limits, onTimeout);
}
