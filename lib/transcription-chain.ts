// The chain of POST /v1/audio/transcriptions: the multipart upload parsed and spooled to disk, the
// form validated and the model chosen, credits reserved and settled by the generic reserve-credits
// and settle stages (parametrised for a job), the file sent upstream (with failover), the answer encoded.
import type { Config } from './config.js';
import { Chain } from './pipeline.js';
import type { ChainNote } from './notes.js';
import { AUDIO_EXTENSIONS, checkField, WavScanner, type WavInfo } from './dialects/index.js';
import { parseMultipart, type ByteProbe } from '../stages/parse-multipart.js';
import { encodeTranscriptionResponse, reserveForJob, routeTranscription, settleForResult, type TranscriptionJob, type TranscriptionResult } from '../stages/transcribe.js';
import { reserveCredits } from '../stages/reserve-credits.js';
import { settle } from '../stages/settle.js';
import { dispatchTranscription } from '../stages/transcribe-dispatch.js';

/** The audio file limit: 25 MB (25 × 1024 × 1024 bytes, as OpenAI counts it). */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

export interface TranscriptionChainOptions {
  /** directory for spooled uploads; default the OS temporary directory */
  uploadDir?: string;
  maxFileBytes?: number;
}

function wavProbe(extension: string): ByteProbe<WavInfo | null> | null {
  return extension === 'wav' ? new WavScanner() : null;
}

export function buildTranscriptionChain(_config: Config, opts: TranscriptionChainOptions = {}): Chain<Buffer, string | ChainNote> {
  return Chain.of(
    parseMultipart<WavInfo | null>({
      fileField: 'file',
      maxFileBytes: opts.maxFileBytes ?? MAX_AUDIO_BYTES,
      extensions: AUDIO_EXTENSIONS,
      onField: checkField,
      probe: wavProbe,
      ...(opts.uploadDir !== undefined ? { dir: opts.uploadDir } : {}),
    }),
  )
    .then(routeTranscription())
    .then(reserveCredits<TranscriptionJob>(reserveForJob))
    .then(dispatchTranscription())
    .then(settle<TranscriptionResult>(settleForResult))
    .then(encodeTranscriptionResponse());
}
