// The transcription stages around the upstream call (stages/transcribe-dispatch.ts):
//
//   routeTranscription    Upload → TranscriptionJob: the form's fields validated, the model chosen
//                         and checked against the key's allowlist, the audio's duration measured,
//                         `ctx.routed` set (so reserve-credits and settle work as on every endpoint)
//   reserveTranscription  TranscriptionJob → TranscriptionJob: reserve-credits, with the duration
//                         bound for per-minute prices
//   settleTranscription   TranscriptionResult → TranscriptionResult: settle, with the audio seconds
//   encodeTranscriptionResponse  TranscriptionResult → string: `json` or `text` for the client
import type { CanonicalRequest, JsonObject, RoutedRequest } from '../lib/chunks.js';
import { modelNotAllowed } from '../lib/auth.js';
import { modelAllowed } from '../lib/catalog.js';
import type { RequestContext } from '../lib/context.js';
import { GatewayError } from '../lib/errors.js';
import { unitsToUsd } from '../lib/pricing.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import {
  audioDuration, encodeTranscription, isAudioExtension, parseTranscriptionFields, reservationTokenBounds, resolveTranscriptionModel,
  type AudioDuration, type TranscriptionFields, type WavInfo,
} from '../lib/dialects/index.js';
import type { Upload } from './parse-multipart.js';
import { reserveCredits } from './reserve-credits.js';
import { costOfUsage, settle } from './settle.js';

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
  const chosen = resolveTranscriptionModel(fields.model, ctx.services.catalog, ctx.config);
  const model = chosen.model;
  if (!modelAllowed(ctx.key?.models ?? [], model.id)) {
    throw modelNotAllowed(ctx.key, model.id);
  }
  const { extension, bytes, probe } = upload.file;
  if (!isAudioExtension(extension)) throw new GatewayError('GW_ERR_FILE_FORMAT_INVALID', `file: unsupported file format ".${extension}".`, { param: 'file' });
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

export function routeTranscription(): StageFactory<AudioUpload, TranscriptionJob> {
  return (): Stage<AudioUpload, TranscriptionJob> => ({
    name: 'route',
    step(upload, ctx) {
      const job = planTranscription(upload, ctx);
      ctx.routed = job.routed;
      return [job];
    },
  });
}

/** reserve-credits for a job: the routed request's token bounds, plus the duration bound for per-minute prices. */
export function reserveTranscription(): StageFactory<TranscriptionJob, TranscriptionJob> {
  return (ctx): Stage<TranscriptionJob, TranscriptionJob> => {
    let boundSeconds = 0;
    const inner = reserveCredits({ audioSecondsBound: () => boundSeconds })(ctx);
    return {
      name: 'reserve-credits',
      step(job, c) {
        boundSeconds = job.audio.boundSeconds;
        const held = inner.step(job.routed, c);
        return (async function* () {
          // the hold commits with the others of this event-loop turn; a refusal (402) throws here
          if (held != null) for await (const _ of held as AsyncIterable<unknown> | Iterable<unknown>) void _;
          yield job;
        })();
      },
      close: (c, error) => inner.close?.(c, error),
    };
  };
}

/** settle, told the audio seconds to bill (per-minute prices) and to store on the usage record. */
export function settleTranscription(): StageFactory<TranscriptionResult, TranscriptionResult> {
  return (ctx): Stage<TranscriptionResult, TranscriptionResult> => {
    let seconds: number | null = null;
    const inner = settle<TranscriptionResult>({ audioSeconds: () => seconds })(ctx);
    return {
      name: 'settle',
      step(result) {
        seconds = result.billedSeconds;
        return [result];
      },
      close: (c, error) => inner.close?.(c, error),
    };
  };
}

export function encodeTranscriptionResponse(): StageFactory<TranscriptionResult, string> {
  return (): Stage<TranscriptionResult, string> => ({
    name: 'encode',
    step(result, ctx) {
      const usage = ctx.usage;
      const encoded = encodeTranscription(result.job.fields.responseFormat, {
        text: result.text,
        seconds: result.seconds,
        inputTokens: usage?.input ?? 0,
        outputTokens: usage?.output ?? 0,
        // the same figure settle charges: the usage's token cost plus the billed seconds' per-minute cost
        costUsd: unitsToUsd(costOfUsage(ctx, result.billedSeconds)),
      });
      ctx.response.status = 200;
      ctx.response.headers['content-type'] = encoded.contentType;
      ctx.response.headers['content-length'] = String(Buffer.byteLength(encoded.body));
      return [encoded.body];
    },
  });
}
