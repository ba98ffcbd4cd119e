// The public API of `model-gateway` (package.json `exports`). Everything a user may rely on is named
// here; any other file under dist/ is internal and may change without notice.

// the gateway as a library: mount `handle` in your own node:http server, or listen on `server`
export { createGateway, type Gateway, type GatewayConfig, type GatewayOptions } from './gateway.js';
export type { Config } from './config.js';

// the endpoint table (one entry per endpoint: method, path, hooks, chain): pass your own list to
// createGateway({ endpoints }) to serve a subset or add an endpoint
export { endpoints } from './endpoints/index.js';
export type { Endpoint, EndpointChain, EndpointDefinition, EndpointTable, Hook, Learned, RequestHead } from './endpoints/index.js';

// building and running chains of stages
export { chain, defineStage, runStage, toTransform, type Stage, type StageFactory, type StageOutput, type Values } from './stage.js';
export { fuseStages } from './fused-chain.js';
// what one stage tells later ones (and the response writer), and what a client encoder reads
export { isNote, type ChainNote, type RoutedNote, type ReservedNote, type HeadersNote, type UpstreamNote, type UsageNote, type HeadNote, type Upstream, type Outcome } from './notes.js';
export { EncoderState, type EncoderInput } from './encoder-input.js';
export { Chain } from './pipeline.js';

// every stage factory
export * from '../stages/index.js';

// running stages without the server: a request context for offline use, and events as plain JSON
export { offlineContext, eventToJson, type OfflineContextOptions } from './offline-context.js';
export type { RequestContext, EndpointName } from './context.js';

// the dialects: one registry (a Dialect per wire API) and the per-part lookups the stages use
export {
  dialects,
  dialectFor,
  DIALECT_NAMES,
  upstreamDecoders,
  upstreamDialect,
  sseEncoders,
  jsonEncoders,
  encodeUpstreamRequest,
  renderError,
  type Dialect,
  type UpstreamDecoder,
  type UpstreamDecoderFactory,
  type SseEncoder,
  type SseEncoderFactory,
  type SseEncoderOptions,
  type JsonEncoderFactory,
  type JsonEncodeOptions,
  type EncodedCall,
  type RenderedError,
} from './dialects/index.js';

// the values that move through a chain
export type {
  CanonicalBlock,
  CanonicalEvent,
  CanonicalEventType,
  CanonicalRequest,
  Deployment,
  DialectName,
  JsonObject,
  JsonValue,
  RawBody,
  RoutedRequest,
  StopReason,
  UpstreamMessage,
  Usage,
} from './chunks.js';

// replaying a recorded provider stream (or JSON answer) through the stages, as bin/replay does
export { replay, detectDialect, type ReplayOptions, type ReplayResult } from './replay/index.js';

// errors: one class, a stable code each
export { GatewayError, ERROR_CODES, type ErrorCode } from './errors.js';
