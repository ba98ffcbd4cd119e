// Web search run by the gateway (decisions §11): the backends and the runner. The search loop stage,
// citations and client shapes build on this.
export { brave } from './brave.js';
export { exa } from './exa.js';
export { searxng } from './searxng.js';
export { tavily } from './tavily.js';
export { SEARCH_BACKENDS } from './backends.js';
export { checkWebSearchConfig } from './config-check.js';
export { normaliseHits, resultId, type NormaliseOptions } from './normalise.js';
export { createSearchRunner, type SearchAttempt, type SearchOutcome, type SearchRunner, type SearchRunnerOptions } from './runner.js';
export { cleanText, cutText, MARKER_CHARS, safeUrl, urlKey } from './sanitize.js';
export type * from './types.js';
