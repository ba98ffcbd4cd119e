// Every stage factory, for custom pipelines (published through lib/index.ts as `model-gateway`).
// Listed in the order an endpoint's chain runs them. Stages that return a `StageFactory` build a
// fresh stage per request from the context; the others are the stage itself (one per stream).

// request side: bytes → validated request → routed request with credits reserved
export { parseBody } from './parse-body.js';
export { parseMultipart, type ByteProbe, type FormField, type MultipartOptions, type SpooledFile, type Upload } from './parse-multipart.js';
export { validate, type Validator } from './validate.js';
export { route } from './route.js';
export { reserveCredits, type ReserveCreditsOptions } from './reserve-credits.js';
export { countTokensUnavailable } from './count-tokens.js';

// the upstream call and its answer: bytes → SSE messages → canonical events → checked events
export { dispatch, type DispatchOutput } from './dispatch.js';
export { sseDecode, type BodyMode, type SseDecodeOptions } from './sse-decode.js';
export { providerDecode, type ProviderDecodeOptions } from './provider-decode.js';
export { integrity, type IntegrityOptions } from './integrity.js';

// client side: events → the client's dialect, then billing
export { sseEncode, type SseEncodeOptions, type SseEncodeStage } from './sse-encode.js';
export { encodeResponse } from './encode.js';
export { settle, type SettleOptions } from './settle.js';

// transcriptions: multipart upload → job → upstream result → json or text
export {
  routeTranscription,
  reserveForJob,
  settleForResult,
  encodeTranscriptionResponse,
  type AudioUpload,
  type TranscriptionJob,
  type TranscriptionResult,
} from './transcribe.js';
export { dispatchTranscription, type TranscriptionDispatchOutput } from './transcribe-dispatch.js';
