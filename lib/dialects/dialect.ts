// The one shape every wire dialect has (lib/dialects/<name>/index.ts), and the types its parts
// share with the registry (lib/dialects/index.ts). Generic code (server, pipeline, stages) reaches a
// dialect only through the registry; a dialect folder imports this file for its types and never
// another dialect folder (`npm run lint:deps`). Translation between two dialects is not part of a
// dialect: it lives in lib/translate/.
import type { CanonicalEvent, CanonicalRequest, Deployment, DialectName, JsonObject, JsonValue, RoutedRequest } from '../chunks.js';
import type { RequestContext } from '../context.js';
import type { EncoderInput } from '../encoder-input.js';
import type { GatewayError } from '../errors.js';
import type { RouterInput } from '../router/router-api.js';
import type { ConversationLimits } from '../router/turn-budget.js';
import type { Stage } from '../stage.js';

// ---- upstream side -----------------------------------------------------------------------------

export interface UpstreamDecoder {
  /** one SSE message (event name may be absent in data-only dialects) */
  sse(msg: { event: string | undefined; data: string }): CanonicalEvent[];
  /**
   * Optional: `sse` with the events pushed onto `out` (provider-decode's run of one chunk's frames)
   * instead of returned in an array of their own: no array per frame for the frame most of a stream
   * is made of. The same events, state and errors as `sse`.
   */
  sseInto?(msg: { event: string | undefined; data: string }, out: unknown[]): void;
  /** one whole non-streaming response body */
  json(body: string): CanonicalEvent[];
  /** the upstream body ended: events still owed (a chat stream that ended without [DONE]) */
  end?(): CanonicalEvent[];
}

/** A decoder per response: stateful dialects (chat) need a fresh one each time. */
export type UpstreamDecoderFactory = () => UpstreamDecoder;

export interface UpstreamCall {
  body: string;
  /** protocol-specific headers (betas, forwarded headers); auth and content-type are added by dispatch */
  headers: Record<string, string>;
  stream: boolean;
}

/** What dispatch sends: a native encoder may hand over JSON bytes spliced from the client's bytes. */
export type EncodedCall = Omit<UpstreamCall, 'body'> & { body: string | Buffer };

export type RequestEncoder = (routed: RoutedRequest, deployment: Deployment) => EncodedCall;

// ---- client side -------------------------------------------------------------------------------

export interface ValidateOptions {
  /** Messages only: the body of `/v1/messages/count_tokens` (no `max_tokens` needed) */
  countTokens?: boolean;
}

/** A client request body (already parsed) → the canonical request; throws a 400 naming the field. */
export type ClientValidator = (body: JsonValue, ctx: RequestContext, opts?: ValidateOptions) => CanonicalRequest;

export interface SseEncoder {
  /** SSE text for one event; '' when the event has nothing to say to this client */
  encode(ev: CanonicalEvent): string;
  /** terminal in-band error frame(s) after output began: the dialect's in-stream error frame */
  fail(err: GatewayError): string;
  /** the keep-alive frame written during provider silence */
  readonly keepalive: string;
}

export interface SseEncoderOptions {
  /** the model value the client asked for; undefined keeps the upstream value */
  clientModel: string | undefined;
  /** the request id the client sees (the `request-id` header) */
  requestId: string;
  /** the request: routed model, validated usage and its cost (lib/encoder-input.ts) */
  input: EncoderInput;
}

export type SseEncoderFactory = (opts: SseEncoderOptions) => SseEncoder;

export interface JsonEncodeOptions {
  /** the model value the client asked for; default `input.routed?.request.model` */
  clientModel?: string | ((input: EncoderInput) => string | undefined);
  /** the `gateway` routing object, added at the top level when defined */
  gatewayInfo?: (input: EncoderInput) => JsonObject | undefined;
}

/** A fresh aggregating stage per request: collects events, writes one JSON body at flush. */
export type JsonEncoderFactory = (input: EncoderInput, opts?: JsonEncodeOptions) => Stage<CanonicalEvent, string>;

/** A GatewayError as this dialect's JSON error response (before any byte went out). */
export interface ErrorEnvelope {
  status: number;
  body: string;
}

/** The rate-limit header names a client of this dialect reads. */
export interface RateLimitHeaderNames {
  requestsLimit: string;
  requestsRemaining: string;
  requestsReset: string;
  tokensLimit: string;
  tokensRemaining: string;
  tokensReset: string;
  /** how a reset is written: an RFC 3339 instant, or a duration like `12s` / `1m0s` */
  reset: 'instant' | 'duration';
}

/** Which response header carries the request id, and when the upstream's own id replaces ours. */
export interface RequestIdRule {
  /** the header the gateway's request id is written to */
  header: string;
  /**
   * When the upstream that answered speaks this protocol, its request id goes in `header` instead
   * and ours moves to `x-gateway-request-id` (a Messages client sees Anthropic's ids).
   */
  upstreamProtocol?: Deployment['protocol'];
}

// ---- gateway-auto ----------------------------------------------------------------------------------

/** What gateway-auto reads of a request: the router's input (but the token bound) and the tool-loop fact. */
export interface ConversationView extends Omit<RouterInput, 'inputTokens'> {
  /** the last turn answers the model's tool calls: the session must not change model now */
  readonly toolLoop: boolean;
}

/** Reads the recent turns of a validated request of this dialect, within `limits`. */
export type ConversationReader = (req: CanonicalRequest, limits: ConversationLimits) => ConversationView;

// ---- the dialect -------------------------------------------------------------------------------

export interface Dialect {
  readonly name: DialectName;
  /** the frame that keeps a streaming answer alive while no upstream has answered yet (text dialects) */
  readonly keepalive?: string;
  /** the client request validator; absent where the dialect's own stages validate (multipart audio) */
  readonly validate?: ClientValidator;
  /** where the dialect is an upstream: the deployment API it is served by, and the native encoder */
  readonly upstream?: { readonly api: Deployment['api']; readonly encodeRequest: RequestEncoder };
  /** where the dialect is an upstream with a generic decoder: SSE and JSON bodies → CanonicalEvents */
  readonly decoder?: UpstreamDecoderFactory;
  /** client encoders: SSE (its `fail` is the in-stream error frame) and non-streaming JSON */
  readonly sseEncoder?: SseEncoderFactory;
  readonly jsonEncoder?: JsonEncoderFactory;
  /**
   * The members of a client request's body that its encoders read (lib/answer-request.ts keeps only
   * these for as long as the answer streams); absent: none
   */
  readonly answerMembers?: readonly string[];
  /** the JSON error envelope and its status */
  errorEnvelope(err: GatewayError, requestId: string): ErrorEnvelope;
  readonly rateLimitHeaders: RateLimitHeaderNames;
  readonly requestId: RequestIdRule;
  /** gateway-auto: what the router reads of a client request (absent where a dialect is never auto-routed) */
  readonly conversation?: ConversationReader;
  /** web search run by the gateway (decisions §11): the client body offered a search function and continued */
  readonly searchTurns?: SearchTurns;
}

/** The function the upstream model is offered in place of a hosted web-search tool. */
export interface SearchFunction {
  name: string;
  description: string;
  /** JSON Schema of its arguments */
  parameters: JsonObject;
}

/** One round of the search loop, as the next round's request must replay it. */
export interface SearchRoundTurn {
  /** the model's visible text of the round (before its calls) */
  text: string;
  /** its signed thinking, replayed where the dialect carries it */
  thinking: { thinking: string; signature: string }[];
  /** its search calls, in order, with what each gives back */
  calls: { id: string; argsJson: string; result: string; isError: boolean }[];
}

/** How a client dialect's body offers the search function and carries the rounds on (wire shapes). */
export interface SearchTurns {
  /**
   * whether a deployment speaking this dialect's own upstream API runs the hosted search tool itself
   * (Messages → Anthropic: passed through natively, not run by the gateway)
   */
  readonly hostedNatively: boolean;
  /** how this dialect's clients see citations: spans on the text, or cited text in blocks of its own */
  readonly citationStyle: 'spans' | 'blocks';
  /** the hosted web-search tools the body asks for (0: none) */
  hostedSearches(body: JsonObject): number;
  /** the body with its hosted web-search tools replaced by `fn`; null when `fn.name` is taken by a client tool */
  offer(body: JsonObject, fn: SearchFunction): JsonObject | null;
  /** the body continued with one round: the model's turn, then one tool result per call */
  append(body: JsonObject, fn: SearchFunction, round: SearchRoundTurn): JsonObject;
}
