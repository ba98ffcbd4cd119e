// The OpenAI transcriptions dialect (the Dialect interface, ../dialect.ts): multipart audio in, one
// JSON or text document out. Its request is validated and sent by its own stages (parse-multipart,
// transcribe, transcribe-dispatch), which use the audio helpers below through the registry; the
// error envelope, rate-limit names and request-id header are the OpenAI platform's (lib/openai/).
import { openAiErrorBody } from '../../openai/errors.js';
import { OPENAI_RATE_LIMIT_HEADERS, OPENAI_REQUEST_ID } from '../../openai/headers.js';
import type { Dialect } from '../dialect.js';

export const openaiTranscriptions = {
  name: 'openai-transcriptions',
  errorEnvelope: (err) => openAiErrorBody(err),
  rateLimitHeaders: OPENAI_RATE_LIMIT_HEADERS,
  requestId: OPENAI_REQUEST_ID,
} as const satisfies Dialect;

// the transcription stages' helpers (multipart fields, audio duration, billing bounds, upstream body)
export { estimatedTokens, reservationTokenBounds } from './billing.js';
export { AUDIO_EXTENSIONS, AUDIO_MIME, audioDuration, isAudioExtension, type AudioDuration, type AudioExtension } from './duration.js';
export { encodeTranscription } from './encode.js';
export { checkField, parseTranscriptionFields, type TranscriptionFields } from './fields.js';
export { resolveTranscriptionModel } from './model.js';
export { multipartBody, parseUpstreamTranscript, type UpstreamTranscript } from './upstream.js';
export { WavScanner, type WavInfo } from './wav.js';
