// The dialect registry: the one door from generic code (server, pipeline, stages) to the wire
// dialects. Each dialect is one object in its own folder (`<name>/index.ts`, the Dialect interface
// in dialect.ts); the folders never import one another, and translation between two of them lives
// in lib/translate/. `npm run lint:deps` (.dependency-cruiser.cjs) keeps it so.
import type { DialectName } from '../chunks.js';
import type { Upstream } from '../notes.js';
import type { GatewayError } from '../errors.js';
import { anthropic } from './anthropic/index.js';
import type { ConversationReader, Dialect, JsonEncoderFactory, RateLimitHeaderNames, SearchTurns, SseEncoderFactory, UpstreamDecoderFactory } from './dialect.js';
import { openaiChat } from './openai-chat/index.js';
import { openaiResponses } from './openai-responses/index.js';
import { openaiTranscriptions } from './openai-transcriptions/index.js';
import { renderDialectError, type RenderedError } from './render-error.js';
import { initRequestEncoders } from './request-encoders.js';

export const dialects = {
  anthropic,
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  'openai-transcriptions': openaiTranscriptions,
} as const satisfies Record<DialectName, Dialect>;

export const DIALECT_NAMES = Object.keys(dialects) as DialectName[];

export function dialectFor(name: DialectName): Dialect {
  return dialects[name];
}

initRequestEncoders(Object.values(dialects));

/** The wire dialect an upstream speaks, from the provider that answered (protocol + api). */
export function upstreamDialect(provider: Pick<Upstream, 'protocol' | 'api'> | null): DialectName | undefined {
  if (provider === null) return undefined;
  if (provider.protocol === 'anthropic') return 'anthropic';
  switch (provider.api) {
    case 'chat':
      return 'openai-chat';
    case 'responses':
      return 'openai-responses';
    case 'transcriptions':
      return 'openai-transcriptions';
    default:
      return undefined;
  }
}

// ---- views by part, for the stages ---------------------------------------------------------------

function byDialect<T>(pick: (d: Dialect) => T): Record<DialectName, T> {
  return Object.fromEntries(DIALECT_NAMES.map((name) => [name, pick(dialects[name])])) as Record<DialectName, T>;
}

/** Upstream decoders (provider-decode): undefined where the dialect has no generic decoder. */
export const upstreamDecoders: Record<DialectName, UpstreamDecoderFactory | undefined> = byDialect((d) => d.decoder);
/** The keep-alive frame of each text dialect, written before any upstream answered (lib/request-io.ts). */
export const keepaliveFrames: Record<DialectName, string | undefined> = byDialect((d) => d.keepalive);
/** Client SSE encoders (sse-encode). */
export const sseEncoders: Record<DialectName, SseEncoderFactory | undefined> = byDialect((d) => d.sseEncoder);
/** Client non-streaming JSON encoders (encode). */
export const jsonEncoders: Record<DialectName, JsonEncoderFactory | undefined> = byDialect((d) => d.jsonEncoder);
/** What gateway-auto reads of a client request (route): undefined where a dialect is never auto-routed. */
export const conversationReaders: Record<DialectName, ConversationReader | undefined> = byDialect((d) => 'conversation' in d ? d.conversation : undefined);
/** How each client dialect offers the gateway's search function and carries its rounds (search stages). */
export const searchTurns: Record<DialectName, SearchTurns | undefined> = byDialect((d) => ('searchTurns' in d ? d.searchTurns : undefined));
/** Rate-limit header names per client dialect (reserve-credits). */
export const rateLimitHeaderNames: Record<DialectName, RateLimitHeaderNames> = byDialect((d) => d.rateLimitHeaders);

/** A GatewayError as the client dialect's error response: status, headers, envelope body. */
export function renderError(dialect: DialectName, err: GatewayError, requestId: string): RenderedError {
  return renderDialectError(dialects[dialect], err, requestId);
}

export { canEncode, encodeUpstreamRequest, registerRequestEncoder } from './request-encoders.js';

// ---- dialect-specific helpers that generic wiring needs ------------------------------------------

// the Messages endpoints' header hooks
export { validateMessagesHeaders, validateMessagesQuery, type MessagesHeaderInfo } from './anthropic/index.js';
// the transcription endpoint's own stages (multipart fields, audio duration, billing, upstream body)
export {
  AUDIO_EXTENSIONS, AUDIO_MIME, audioDuration, checkField, encodeTranscription, estimatedTokens, isAudioExtension, multipartBody,
  parseTranscriptionFields, parseUpstreamTranscript, reservationTokenBounds, resolveTranscriptionModel, WavScanner,
  type AudioDuration, type AudioExtension, type TranscriptionFields, type UpstreamTranscript, type WavInfo,
} from './openai-transcriptions/index.js';
export type { RenderedError } from './render-error.js';
export type * from './dialect.js';
