// The transcription stages around the upstream call (stages/transcribe-dispatch.ts):
//
//   routeTranscription    Upload → TranscriptionJob: the form's fields validated, the model chosen
//                         and checked against the key's allowlist, the audio's duration measured,
//                         a `routed` note output (settle and the encoder read it, as on every endpoint)
//   reserveForJob         the options of the generic reserve-credits for a job: its routed request,
//                         and the duration bound for per-minute prices
//   settleForResult       the options of the generic settle for a result: the audio seconds to bill
//   encodeTranscriptionResponse  TranscriptionResult → string: `json` or `text` for the client, after
//                         its `head` note
import type { CanonicalRequest, JsonObject, RoutedRequest, Usage } from '../lib/chunks.js';
import { costOfUsage } from '../lib/billing/cost.js';
import type { HeadNote, RoutedNote } from '../lib/notes.js';
import { modelAllowed } from '../lib/catalog.js';
import type { RequestContext } from '../lib/context.js';
import { errors } from '../lib/errors/index.js';
import { unitsToUsd } from '../lib/pricing.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import {
  audioDuration, encodeTranscription, isAudioExtension, parseTranscriptionFields, reservationTokenBounds, resolveTranscriptionModel,
  type AudioDuration, type TranscriptionFields, type WavInfo,
} from '../lib/dialects/index.js';
import type { Upload } from './parse-multipart.js';
import type { ReserveCreditsOptions } from './reserve-credits.js';
import type { SettleOptions } from './settle.js';

export type AudioUpload = Upload<WavInfo | null>;

export interface TranscriptionJob {
  upload: AudioUpload;
  fields: TranscriptionFields;
  routed: RoutedRequest;
  audio: AudioDuration;
}

export interface TranscriptionResult {
  job: TranscriptionJob;
  text: string;
  /** the duration the client is shown: exact for WAV, else the upstream's figure, else the estimate */
  seconds: number;
  /** the duration billed at a per-minute price and stored on the usage record: the upstream's figure, else `seconds` */
  billedSeconds: number;
}

function requestBody(fields: TranscriptionFields, upload: AudioUpload): JsonObject {
  const body: JsonObject = { model: fields.model, response_format: fields.responseFormat, file: { filename: upload.file.filename, bytes: upload.file.bytes } };
  if (fields.language !== null) body.language = fields.language;
  if (fields.prompt !== null) body.prompt = fields.prompt;
  if (fields.temperature !== null) body.temperature = fields.temperature;
  return body;
}

export function planTranscription(upload: AudioUpload, ctx: RequestContext): TranscriptionJob {
  const fields = parseTranscriptionFields(upload.fields);
  const started = performance.now();
  const chosen = resolveTranscriptionModel(fields.model, ctx.services.catalog, ctx.config, ctx.key?.models ?? []);
  const model = chosen.model;
  if (!modelAllowed(ctx.key?.models ?? [], model.id)) throw errors.modelNotAllowed(model.id, ctx.key?.id);
  const { extension, bytes, probe } = upload.file;
  if (!isAudioExtension(extension)) throw errors.audioFormatUnsupported(extension);
  const audio = audioDuration(extension, bytes, probe);
  const bounds = reservationTokenBounds(bytes, audio.boundSeconds);
  const request: CanonicalRequest = {
    source: 'openai-transcriptions',
    body: requestBody(fields, upload),
    model: fields.model,
    stream: false,
    maxTokens: bounds.output,
    needs: { modalities: new Set(['audio']), tools: false, reasoning: false, signedThinking: false },
    inputTokenBound: bounds.input,
    hostedToolUses: 0,
    labels: fields.labels,
    forward: { betas: [], headers: {} },
  };
  const routed: RoutedRequest = {
    request,
    modelId: model.id,
    deployments: chosen.deployments,
    routed: chosen.auto,
    routingLatencyMs: chosen.auto ? Math.round((performance.now() - started) * 1000) / 1000 : null,
    maxTokens: bounds.output,
    modelMaxOutputTokens: model.maxOutputTokens,
    modelReasoning: false,
    maxTokensCappedTo: null,
    thinkingBudget: null,
  };
  return { upload, fields, routed, audio };
}

/** The job, with its routed request told to the later stages (settle, the encoder) as a note. */
export function routeTranscription(): StageFactory<AudioUpload, TranscriptionJob | RoutedNote> {
  return (): Stage<AudioUpload, TranscriptionJob | RoutedNote> => ({
    name: 'route',
    step(upload, ctx) {
      const job = planTranscription(upload, ctx);
      return [{ note: 'routed', routed: job.routed }, job];
    },
  });
}

/** reserve-credits for a job: the routed request's token bounds, plus the duration bound for per-minute prices. */
export const reserveForJob: ReserveCreditsOptions<TranscriptionJob> = { routedOf: (job) => job.routed, audioSecondsBound: (job) => job.audio.boundSeconds };

/** settle for a result: the audio seconds to bill (per-minute prices) and to store on the usage record. */
// the one result completes the answer: its settle commits before the encoder writes the body (with the cost)
export const settleForResult: SettleOptions<TranscriptionResult> = { audioSeconds: (result) => result.billedSeconds, completes: () => true };

export function encodeTranscriptionResponse(): StageFactory<TranscriptionResult, string | HeadNote> {
  return (ctx): Stage<TranscriptionResult, string | HeadNote> => {
    let routed: RoutedRequest | null = null;
    let usage: Usage | null = null;
    return {
      name: 'encode',
      note(n) {
        if (n.note === 'routed') routed = n.routed;
        else if (n.note === 'usage') usage = n.usage;
      },
      step(result) {
        const encoded = encodeTranscription(result.job.fields.responseFormat, {
          text: result.text,
          seconds: result.seconds,
          inputTokens: usage?.input ?? 0,
          outputTokens: usage?.output ?? 0,
          // the same figure settle charges: the usage's token cost plus the billed seconds' per-minute cost
          costUsd: unitsToUsd(routed === null ? 0 : costOfUsage(ctx.services.catalog, routed.modelId, usage, result.billedSeconds)),
        });
        const head: HeadNote = {
          note: 'head',
          status: 200,
          headers: { 'content-type': encoded.contentType, 'content-length': String(Buffer.byteLength(encoded.body)) },
          whole: false,
          keepalive: null,
        };
        return [head, encoded.body];
      },
    };
  };
}
