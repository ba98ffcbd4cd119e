// The replay library: what bin/replay runs, for programs that debug recorded provider answers.
export { replay, ReplayInputError, type ReplayFailure, type ReplayOptions, type ReplayOutput, type ReplayResult } from './replay.js';
export { detectDialect, type ReplayDialect } from './detect.js';
export { chunkBytes, prng, type ChunkSize } from './chunking.js';
export { sseEventOffsets } from './offsets.js';
export type { ServedFacts } from './served.js';
