// The contract between the learned router (lib/router/: encoder, scorer, shipped weights, decision)
// and the route stage that uses it for `gateway-auto`. The route stage applies the hard constraints
// first (modalities, tools, reasoning, context, speed, web search, the key's allowlist); the router
// only ever sees candidates that can serve the request, and only weighs quality against cost.

/** A requested reasoning effort, as the validators normalise it; null when the request asks none. */
export type RouterEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/** One turn as the router reads it: plain text (tool calls as name and arguments, results as text). */
export interface RouterTurn {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly text: string;
}

/** What the router reads of one request: the recent turns and structural facts. */
export interface RouterInput {
  /** the recent turns, oldest first */
  readonly turns: readonly RouterTurn[];
  /** how many tool definitions the request offers */
  readonly tools: number;
  /** the requested reasoning effort */
  readonly effort: RouterEffort | null;
  /** images, documents and audio attached anywhere in the conversation */
  readonly attachments: number;
  /** the gateway's bound on the request's input tokens */
  readonly inputTokens: number;
}

/**
 * A model's quality profile (the catalog's `quality`), item-response style: the probability that a
 * model answers a prompt well grows with its ability over the prompt's difficulty, per skill.
 * A catalog model is added by declaring its profile; nothing is retrained.
 */
export interface QualityProfile {
  /** overall ability (a logit) */
  readonly ability: number;
  /** per-skill ability offsets (logits) by the router's skill names (`Router.skills`); absent: 0 */
  readonly skills?: Readonly<Record<string, number>>;
}

/** A model the router may choose: it already meets every hard need of the request. */
export interface RouterCandidate {
  readonly id: string;
  readonly quality: QualityProfile;
  /** the expected cost of this request on this model (price × expected tokens, cache-aware) */
  readonly cost: number;
}

/** One candidate as the decision saw it, for the log line and the usage record. */
export interface RankedCandidate {
  readonly id: string;
  /** predicted probability of a good answer */
  readonly quality: number;
  readonly cost: number;
}

export interface RouterDecision {
  /** the chosen candidate's id */
  readonly model: string;
  /** every candidate, best predicted quality first */
  readonly ranked: readonly RankedCandidate[];
}

export interface Router {
  /** the skill dimensions of the shipped model, in order */
  readonly skills: readonly string[];
  /** the predicted probability of a good answer for each profile; deterministic */
  predict(input: RouterInput, profiles: readonly QualityProfile[]): Float64Array;
  /**
   * The cheapest candidate whose predicted quality stays within `target` (a fraction, e.g. 0.95) of
   * the best candidate's; ties broken by higher quality, then id. Deterministic for the same input.
   */
  decide(input: RouterInput, candidates: readonly RouterCandidate[], target: number): RouterDecision;
}
