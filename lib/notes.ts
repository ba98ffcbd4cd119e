// What one stage learns and a later one needs travels down the chain as a typed note: an item of the
// stage's output, tagged by `note`, next to its ordinary values (as undici hands each dispatch
// handler its callbacks' arguments). The runner (lib/stage.ts) hands a note to the `note` hook of
// every later stage and then to the response writer (lib/request-io.ts); a stage's `step` never
// sees one. A few notes per request, never one per chunk:
//
//   routed    route          the routed request, as the answer keeps it (lib/answer-request.ts)
//                                                          → encoders (model, stream), settle
//   reserved  reserve-credits the credit hold              → settle (ends it exactly once)
//   headers   reserve-credits rate-limit headers; dispatch the upstream's request id → response writer
//   upstream  dispatch       which deployment answered, how, and when; what its answer check
//                            decoded of it (`checked`)     → decoders, integrity, settle
//   usage     integrity      validated usage so far        → encoders (cost), settle (charge)
//   failed    integrity      the provider's in-band error   → settle (record and charge as failed)
//   head      encoder        status, content headers, whole-document, keep-alive → response writer
//   search    search-offer   the request as offered the search function → search-loop
//   counted   search-loop    tokens a further round was counted for by the key's rate limit → settle
import type { RoutedRequest, SearchPlan, Usage } from './chunks.js';
import type { GatewayError } from './errors.js';
import type { CheckedAnswer } from './providers/checked-answer.js';
import type { UpstreamTiming } from './request-log.js';
import type { Reservation } from './store/types.js';

/** The deployment whose answer the client gets (dispatch, once it answered 2xx). */
export interface Upstream {
  readonly id: string;
  readonly protocol: 'anthropic' | 'openai';
  readonly api: 'messages' | 'chat' | 'responses' | 'transcriptions';
  readonly upstreamModel: string;
  readonly requestId?: string;
  /** the upstream answered with SSE (else one JSON body) */
  readonly stream: boolean;
  /** when the call was sent, answered and ended: dispatch fills in `endedAt` when the body ends */
  readonly timing: UpstreamTiming;
}

export interface RoutedNote {
  readonly note: 'routed';
  readonly routed: RoutedRequest;
}

export interface ReservedNote {
  readonly note: 'reserved';
  readonly reservation: Reservation;
  /** the tokens the key's tokens-per-minute limit counted at admission: settle puts the tokens used in their place */
  readonly countedTokens: number;
}

/** Response headers a stage contributes (the response writer alone writes the head). */
export interface HeadersNote {
  readonly note: 'headers';
  readonly headers: Readonly<Record<string, string>>;
}

/** A deployment answered (`upstream`), or the one that had answered was lost before its first byte (null). */
export interface UpstreamNote {
  readonly note: 'upstream';
  readonly upstream: Upstream | null;
  /**
   * What the answer check decoded of the answer while it held it back (lib/providers/checked-answer.ts):
   * sse-decode and provider-decode take it instead of decoding those bytes again. Undefined for nothing.
   */
  readonly checked?: CheckedAnswer | undefined;
}

/** The validated usage so far (cumulative: each note replaces the one before). */
export interface UsageNote {
  readonly note: 'usage';
  readonly usage: Usage;
}

/**
 * The provider ended its answer with an in-band error (an `error` event after HTTP 200). The error
 * event goes on and the encoder writes the dialect's error frame, so the chain itself ends without
 * an exception: this note is how settle learns the request failed (its code, the charge rule of a
 * failed request).
 */
export interface FailedNote {
  readonly note: 'failed';
  readonly error: GatewayError;
}

/** The client encoder's response head: the writer sends it before the first byte. */
export interface HeadNote {
  readonly note: 'head';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** one document (a non-streaming body): held and sent at the end with its `content-length` */
  readonly whole: boolean;
  /** the frame written during provider silence, or null for none */
  readonly keepalive: string | null;
}

/**
 * The gateway runs web search for this request (decisions §11): the routed request as dispatched,
 * with the search function offered and the loop's limits, which the search loop continues round by round.
 */
export interface SearchNote {
  readonly note: 'search';
  readonly routed: RoutedRequest & { readonly search: SearchPlan };
}

/**
 * A further round of the search loop is another upstream call: the key's tokens-per-minute limit
 * counted it when it was sent, as admission counted the first; settle puts the tokens used in place
 * of every count.
 */
export interface CountedNote {
  readonly note: 'counted';
  readonly tokens: number;
}

export type ChainNote = RoutedNote | ReservedNote | HeadersNote | UpstreamNote | UsageNote | FailedNote | HeadNote | SearchNote | CountedNote;

/** How a request ended, as the client saw it: what settle records and logs. */
export interface Outcome {
  readonly status: number;
  readonly errorCode?: string;
}

/** Whether a chain item is a note (strings and Buffers are not; events and requests have no `note`). */
export function isNote(item: unknown): item is ChainNote {
  return typeof item === 'object' && item !== null && (item as { note?: unknown }).note !== undefined;
}
