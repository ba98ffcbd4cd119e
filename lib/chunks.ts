// The typed values that flow between stages. Nothing here names a provider or a wire format: every
// dialect converts its wire shapes to and from these types inside lib/dialects/<d>/.
import type { RawJson } from './json/splice.js';
import type { GatewayError } from './errors.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The wire dialects: what a client speaks, and what an upstream deployment speaks. */
export type DialectName = 'anthropic' | 'openai-chat' | 'openai-responses' | 'openai-transcriptions';

/** A request body as received: parsed strictly, with its size. */
export interface RawBody {
  value: JsonValue;
  bytes: number;
  /** the body as received and where its top-level member values lie (for native forwarding) */
  raw?: RawJson;
}

/**
 * A validated request. `body` is the source dialect's wire body, untouched, so a same-dialect
 * deployment receives it unchanged (only `model` and a capped `max_tokens` are replaced). The other
 * fields are what routing, billing and translation need, extracted once by the validator.
 */
export interface CanonicalRequest {
  source: DialectName;
  body: JsonObject;
  /**
   * `body`'s bytes as the client sent them, while a same-dialect deployment may still need them:
   * the native encoder splices the changed values in instead of re-serialising (dispatch drops
   * them once an upstream answered).
   */
  raw?: RawJson;
  /** the model value as the client wrote it; null when omitted (auto-routing where the dialect allows) */
  model: string | null;
  stream: boolean;
  /** the caller's output ceiling, if given */
  maxTokens: number | null;
  /** a manual thinking budget (Messages `thinking.budget_tokens`, Chat `reasoning.max_tokens`), if given */
  thinkingBudget?: number | null;
  /** hard needs that routing must honour */
  needs: RequestNeeds;
  /** an upper bound of input tokens, for reservations and context-length routing */
  inputTokenBound: number;
  /** maximum number of billable hosted-tool uses (web searches) */
  hostedToolUses: number;
  labels: { callName?: string; endUserId?: string };
  /** dialect-specific header facts (betas, session id) the dispatcher forwards */
  forward: ForwardInfo;
  /** what the client validator found that later readers need (typed per dialect: ClientFindings) */
  findings?: ClientFindings;
}

/**
 * What a client validator found that the request encoders, translators and client encoders read
 * later (the Responses tools and reasoning facts, the Chat `gateway-auto` default effort): carried by
 * the request itself, never by a module-level map. Each dialect declares its own optional field by
 * module augmentation next to its validator, so this file names no dialect type.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ClientFindings {}

export interface RequestNeeds {
  modalities: Set<'text' | 'image' | 'audio'>;
  tools: boolean;
  reasoning: boolean;
  /** conversation replays model-bound signed thinking: auto-routing is refused */
  signedThinking: boolean;
  /** requested speed (`fast` needs a catalog model that lists it) */
  speed?: string;
  /** web search is the only tool (decisions §11): gateway-auto needs a model flagged `webSearch` */
  searchOnly?: boolean;
}

export interface ForwardInfo {
  betas: string[];
  /** other `anthropic-*` headers forwarded to anthropic deployments, lower-cased names */
  headers: Record<string, string>;
  sessionId?: string;
}

/** A deployment chosen for the request, in failover order. */
export interface Deployment {
  providerId: string;
  protocol: 'anthropic' | 'openai';
  api: 'messages' | 'chat' | 'responses' | 'transcriptions';
  upstreamModel: string;
}

export interface RoutedRequest {
  request: CanonicalRequest;
  /** catalog id of the model that will serve */
  modelId: string;
  deployments: readonly Deployment[];
  routed: boolean;
  routingLatencyMs: number | null;
  /** max_tokens after capping to the model's maximum; null when the caller gave none */
  maxTokens: number | null;
  /** the served model's maximum output tokens (the ceiling when the caller gave none) */
  modelMaxOutputTokens: number;
  /** the served model reasons: translators send reasoning settings only then (others reject them) */
  modelReasoning: boolean;
  maxTokensCappedTo: number | null;
  thinkingBudget: number | null;
  /** gateway-auto's decision, for the log line and the usage record; absent on direct calls */
  routing?: RoutingDecision;
  /** the gateway runs web search for this request (stages/search-offer.ts): its limits, for the reservation */
  search?: SearchPlan;
}

/** The limits of one request's search loop (decisions §11), fixed before the reservation. */
export interface SearchPlan {
  /** searches the request may run (webSearch.maxSearches, or Messages' `max_uses` when smaller) */
  maxSearches: number;
  /** model rounds in all, the last one answering without further searches */
  maxRounds: number;
  /** an upper bound of the tokens the results of all searches add to one round's input */
  feedTokens: number;
}

/** One candidate as gateway-auto's decision weighed it. */
export interface RoutingCandidate {
  readonly id: string;
  /** predicted probability of a good answer */
  readonly quality: number;
  /** expected cost of the request on it (USD, cache-aware) */
  readonly costUsd: number;
}

/**
 * Why gateway-auto served the model it did (stages/route-auto.ts): the router's choice among the
 * candidates that meet every hard need, and what the session's pin made of it.
 */
export interface RoutingDecision {
  /**
   * `router`: the router's choice (no pinned session); `sticky`: the session stays on its model
   * (the choice saved less than the cache it would lose); `moved`: the session left its model (the
   * saving exceeds the cache loss); `tool-loop`, `signed-thinking`: the session stays, whatever
   * the choice, because the last turn answers tool calls or the history holds signed thinking
   */
  readonly reason: 'router' | 'sticky' | 'moved' | 'tool-loop' | 'signed-thinking';
  /** the quality target the choice kept (a fraction of the best candidate's) */
  readonly target: number;
  /** the router's choice before the session's pin was weighed */
  readonly choice: string;
  /** the model the session was pinned to before this request */
  readonly pinned?: string;
  /** expected saving of the choice over the pinned model, and the warm cache leaving it loses (USD) */
  readonly savingUsd?: number;
  readonly cacheLossUsd?: number;
  /** the best candidates by predicted quality (5, and the served model wherever it ranks) */
  readonly candidates: readonly RoutingCandidate[];
  /** how many candidates met every hard need */
  readonly eligible: number;
}

/** What the upstream decoder receives: one SSE message, or one whole JSON body. */
export type UpstreamMessage =
  | { kind: 'sse'; event: string | undefined; data: string }
  | { kind: 'json'; body: string };

/** Token usage normalised across dialects: `input` excludes cache reads and cache writes. */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** reasoning tokens, already counted inside `output` */
  reasoning: number;
  /** successful hosted web searches */
  webSearches: number;
}

export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, webSearches: 0 };
}

/**
 * The frame as the upstream sent it, kept so a client of the same dialect receives it byte for byte
 * (no re-serialisation of pass-through events). `parsed` is the strictly parsed `data`.
 */
export interface NativeFrame {
  dialect: DialectName;
  event: string;
  data: string;
  parsed: JsonObject;
  /**
   * Set by a decoder whose same-dialect client encoder writes frames through: this frame may go to
   * such a client as it came, with only the gateway's own fields changed, instead of having its
   * events re-encoded. 'frame': written at its first event; 'usage': it carries the final usage,
   * written at its message-delta event (once the validated usage is known).
   */
  through?: 'frame' | 'usage';
  /** where the top-level `model` value lies in `data`, when the decoder recognised the frame's layout */
  modelSpan?: [number, number];
  /** where the top-level `usage` object lies in `data`, when the decoder recognised a usage frame's layout */
  usageSpan?: [number, number];
  /** the members a same-dialect client gets as they came: where they lie in `data` (a recognised layout) */
  kept?: [number, number];
  /**
   * The whole non-streaming answer this frame was cut from, when a decoder made the frame up from it
   * (a Messages body gives one frame per stream event it stands for): a same-dialect JSON encoder may
   * write that answer through when every event came from it.
   */
  answer?: NativeFrame;
}

/** Why generation stopped, in neutral words; `other` keeps a provider value the others lack. */
export type StopReason =
  | { kind: 'end' }
  | { kind: 'length' }
  | { kind: 'stop-sequence'; sequence: string | null }
  | { kind: 'tool-calls' }
  | { kind: 'content-filter' }
  | { kind: 'pause' }
  | { kind: 'other'; value: string };

/** One content block of the answer, as it opens. Later deltas append to it. */
export type CanonicalBlock =
  | { kind: 'text'; text: string; citations?: JsonValue[] }
  | { kind: 'thinking'; thinking: string; signature: string }
  | { kind: 'redacted-thinking'; data: string }
  /**
   * `extra`: a Chat upstream's opaque `tool_calls[].extra_content` (Gemini's thought signature,
   * FAILURE-MODES F24), given back to a Chat client on the call; other dialects drop it
   */
  | { kind: 'tool-call'; id: string; name: string; input: JsonObject | null; extra?: JsonObject }
  /** server-tool blocks, compaction and future block types: opaque, dropped by translators */
  | { kind: 'opaque'; value: JsonObject }
  /**
   * A search the gateway ran itself (decisions §11), opened and closed at once when the backend has
   * answered; each client encoder shows it in its own shape (Responses `web_search_call` item, Messages
   * `server_tool_use` + `web_search_tool_result` blocks). Upstream dialects never see it.
   */
  | { kind: 'web-search'; call: WebSearchCall };

/** One search the gateway ran for the model (decisions §11). */
export interface WebSearchCall {
  /** the gateway's id for this call, unique within the answer */
  id: string;
  query: string;
  status: 'completed' | 'failed';
  /** the sources the backend returned, in its order; only these URLs may be cited */
  sources: WebSearchSource[];
  /** true exactly when the search is charged: it returned at least one usable source */
  billed: boolean;
  /** why it failed or was refused (Messages' `web_search_tool_result_error` codes) */
  errorCode?: 'unavailable' | 'max_uses_exceeded' | 'too_many_requests' | 'query_too_long' | 'invalid_input';
}

export interface WebSearchSource {
  /** the result id the model cites (stable per normalised URL) */
  id: string;
  url: string;
  title: string;
  snippet: string;
  published?: string;
}

/**
 * A `url_citation` on the text of block `index`: `start` and `end` (exclusive) count Unicode code points
 * of that block's text as the client receives it; `url` is always one a backend returned.
 */
export interface UrlCitation {
  url: string;
  title: string;
  start: number;
  end: number;
  /** the cited source's id, so an encoder can find its snippet */
  sourceId: string;
}

interface Base {
  native?: NativeFrame;
}

export type CanonicalEvent =
  | (Base & { type: 'message-start'; id: string; model: string; usage: Usage })
  | (Base & { type: 'block-start'; index: number; block: CanonicalBlock })
  | (Base & { type: 'text-delta'; index: number; text: string })
  | (Base & { type: 'thinking-delta'; index: number; text: string })
  | (Base & { type: 'signature-delta'; index: number; signature: string })
  | (Base & { type: 'tool-input-delta'; index: number; json: string })
  | (Base & { type: 'citation-delta'; index: number; citation: JsonObject })
  /** a gateway-made citation on text already sent in block `index` (web search, decisions §11) */
  | (Base & { type: 'url-citation'; index: number; citation: UrlCitation })
  /** a delta type this gateway does not know yet: passed through to same-dialect clients */
  | (Base & { type: 'opaque-delta'; index: number; delta: JsonObject })
  /** `complete`: the upstream said the item done and whole, so no limit cut it (integrity-checks.ts); never encoded */
  | (Base & { type: 'block-stop'; index: number; complete?: true })
  | (Base & { type: 'message-delta'; stop: StopReason | null; usage: Partial<Usage> })
  | (Base & { type: 'message-stop' })
  | (Base & { type: 'ping' })
  /** an event type this gateway does not know yet */
  | (Base & { type: 'opaque-event'; name: string; data: JsonObject })
  | (Base & { type: 'error'; error: GatewayError });

export type CanonicalEventType = CanonicalEvent['type'];
