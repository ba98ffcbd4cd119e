// POST /v1/audio/transcriptions: the key authenticated and scoped, then the transcription chain
// (lib/transcription-chain.ts: multipart upload, route, reserve, dispatch with failover, settle, encode).
import { buildTranscriptionChain } from '../transcription-chain.js';
import { openAiDialect } from './dialects.js';
import { auth, scope } from './hooks.js';
import type { EndpointDefinition } from './types.js';

export const transcriptions: EndpointDefinition = {
  method: 'POST',
  path: '/v1/audio/transcriptions',
  build: (config) => ({ name: 'audio.transcriptions', dialect: openAiDialect, hooks: [auth, scope('audio.transcriptions')], chain: buildTranscriptionChain(config) }),
};
