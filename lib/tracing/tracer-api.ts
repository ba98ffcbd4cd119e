// What the gateway sees of tracing: one call when a request ends. The OpenTelemetry implementation
// (otel-tracer.ts) is loaded only when tracing is configured (open-tracer.ts); without it no
// OpenTelemetry module is imported and a request pays one `undefined` check.
//
// Spans are built when the request ends, from what the chain already learned (its notes) and a few
// instants settle marks on the way (`StageMarks`), each with its real start and end time: nothing
// is opened per stage while the request runs, and no context is carried through the stages.
import { performance } from 'node:perf_hooks';
import type { RequestContext } from '../context.js';
import type { GatewayError } from '../errors.js';
import type { ChainFacts } from '../request-log.js';

/** Instants of a request's stages (ms since the epoch, sub-millisecond), marked only when tracing. */
export interface StageMarks {
  /** the body read and validated, the model routed (the `routed` note) */
  routedAt?: number;
  /** the credit hold committed (the `reserved` note) */
  reservedAt?: number;
  /** the reservation's end (charge or release) queued, and committed */
  settleStartAt?: number;
  settledAt?: number;
}

/** What a request's trace is built from: the chain's facts and, for a chain, settle's marks. */
export interface TraceFacts extends ChainFacts {
  readonly marks?: StageMarks | null;
}

export interface RequestTracer {
  /** A request ended: the status the client saw, its charge (units), what was learned, the error if it failed. */
  requestEnded(ctx: RequestContext, status: number, costUnits: number, facts: TraceFacts, error: GatewayError | undefined): void;
  /** Exports what is buffered and stops (shutdown). */
  close(): Promise<void>;
}

/** Now, in ms since the epoch with sub-millisecond precision (stage spans are often under a millisecond). */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
