// The learned router for `gateway-auto` (the contract is router-api.ts): loadRouter() reads the
// shipped weights once; predict() scores quality profiles for a request, decide() applies the
// quality/cost rule. In process, no download, no allocation beyond the returned values.
import { decideAmong } from './decide.js';
import type { QualityProfile, Router, RouterCandidate, RouterDecision, RouterInput } from './router-api.js';
import { decodeWeights, directSlots, PromptScorer, readWeightsFile, subjectHead, WEIGHTS_PATH } from './weights.js';

export type * from './router-api.js';
export { defaultQualityProfile, DEFAULT_QUALITY_PROFILES } from './profiles.js';

class LearnedRouter implements Router {
  private qualities = new Float64Array(16);

  constructor(
    private readonly scorer: PromptScorer,
    /** the profiles learned for the training data's models, by their names there */
    readonly learned: Readonly<Record<string, QualityProfile>>,
  ) {}

  get skills(): readonly string[] {
    return this.scorer.skills;
  }

  predict(input: RouterInput, profiles: readonly QualityProfile[]): Float64Array {
    this.scorer.score(input);
    const out = new Float64Array(profiles.length);
    for (let i = 0; i < profiles.length; i++) out[i] = this.scorer.quality(profiles[i]!);
    return out;
  }

  decide(input: RouterInput, candidates: readonly RouterCandidate[], target: number): RouterDecision {
    this.scorer.score(input);
    if (this.qualities.length < candidates.length) this.qualities = new Float64Array(candidates.length * 2);
    const q = this.qualities;
    for (let i = 0; i < candidates.length; i++) q[i] = this.scorer.quality(candidates[i]!.quality);
    return decideAmong(candidates, q, target);
  }
}

export type LearnedRouterApi = Router & { readonly learned: Readonly<Record<string, QualityProfile>> };

const loaded = new Map<string, LearnedRouterApi>();

/**
 * The router with the shipped weights (lib/router/weights.json), read once per process. A Router
 * keeps scratch buffers: use it from one thread (the event loop), as the gateway does.
 */
export function loadRouter(path: string = WEIGHTS_PATH): LearnedRouterApi {
  let router = loaded.get(path);
  if (router === undefined) {
    const file = readWeightsFile(path);
    router = new LearnedRouter(new PromptScorer(file.skills, file.mixture, decodeWeights(file), file.heads, file.members, directSlots(file.direct), subjectHead(file)), file.profiles);
    loaded.set(path, router);
  }
  return router;
}
