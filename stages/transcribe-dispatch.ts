// dispatchTranscription: TranscriptionJob → TranscriptionResult. Sends the spooled file to the
// model's transcriptions deployments in order as a streamed multipart request (re-read from disk for
// each attempt). As in stages/dispatch.ts, a 408, 409, 429, 5xx, timeout or connection failure
// (also while reading the answer: nothing has reached the client yet) moves on to the next
// deployment; 401/403 is the gateway's configuration problem (502); another 4xx is the client's
// (its status and wording kept). When every deployment failed: 503 provider_unavailable.
//
// On success it outputs an `upstream` note (which deployment answered), a `usage` note (the
// upstream's tokens; see lib/dialects/openai-transcriptions/billing.ts when it reports none) and the
// result with the seconds to report and to bill.
import type { Readable } from 'node:stream';
import { emptyUsage, type Usage } from '../lib/chunks.js';
import type { RequestContext } from '../lib/context.js';
import { GatewayError } from '../lib/errors.js';
import { errors } from '../lib/errors/index.js';
import { header, type Failure } from '../lib/providers/failover.js';
import { failover, TryNext, type FailoverCall } from '../lib/providers/failover-loop.js';
import type { UpstreamResponse } from '../lib/providers/upstream-call.js';
import { priceOf } from '../lib/pricing.js';
import type { UpstreamNote, UsageNote } from '../lib/notes.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import {
  AUDIO_MIME, estimatedTokens, isAudioExtension, multipartBody, parseUpstreamTranscript,
  type AudioExtension, type TranscriptionFields, type UpstreamTranscript,
} from '../lib/dialects/index.js';
import type { TranscriptionJob, TranscriptionResult } from './transcribe.js';

/** a transcript of 25 MB of audio is far smaller; anything larger is not a transcription */
const MAX_RESULT_BODY = 8 * 1024 * 1024;

async function readResult(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESULT_BODY) throw errors.transcriptionAnswerTooLarge(MAX_RESULT_BODY);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The answer's body, ending the upload stream (re-read from disk for each attempt) once it ended. */
async function* bodyThenClose(body: AsyncIterable<Buffer>, upload: Readable): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of body) yield chunk as Buffer;
  } finally {
    upload.destroy();
  }
}

function upstreamFields(f: TranscriptionFields, upstreamModel: string): [string, string][] {
  const out: [string, string][] = [
    ['model', upstreamModel],
    ['response_format', 'json'],
  ];
  if (f.language !== null) out.push(['language', f.language]);
  if (f.prompt !== null) out.push(['prompt', f.prompt]);
  if (f.temperature !== null) out.push(['temperature', String(f.temperature)]);
  return out;
}

function exhausted(job: TranscriptionJob, failures: readonly Failure[]): GatewayError {
  const last = failures[failures.length - 1];
  if (last === undefined) return errors.noTranscriptionDeployment(job.routed.modelId);
  const details = failures.map((f) => f.detail);
  if (failures.every((f) => f.kind === 'timeout')) return errors.deploymentsTimedOut(job.routed.modelId, details, last.upstream);
  return errors.deploymentsFailed(job.routed.modelId, details, last.upstream);
}

/** The result from the upstream's transcript: its usage, the seconds to report and to bill. */
function settleResult(job: TranscriptionJob, t: UpstreamTranscript, ctx: RequestContext): { usage: Usage; result: TranscriptionResult } {
  const usage = emptyUsage();
  const model = ctx.services.catalog.get(job.routed.modelId);
  const perMinute = model !== undefined && priceOf(model).perMinute > 0n;
  const seconds = job.audio.exact ? job.audio.seconds : (t.seconds ?? job.audio.seconds);
  if (t.tokens !== null) {
    usage.input = t.tokens.input;
    usage.output = t.tokens.output;
  } else if (!perMinute) {
    const est = estimatedTokens(t.seconds ?? seconds, t.text);
    usage.input = est.input;
    usage.output = est.output;
    ctx.log.warn({ model: job.routed.modelId, estimated: est }, 'the provider reported no token usage: billed by estimate');
  }
  return { usage, result: { job, text: t.text, seconds, billedSeconds: t.seconds ?? seconds } };
}

/** What dispatchTranscription outputs: which upstream answered, its usage, then the result. */
export type TranscriptionDispatchOutput = TranscriptionResult | UpstreamNote | UsageNote;

/** The spooled file to each transcriptions deployment in turn; a 2xx answer read whole and parsed. */
function transcriptionCall(job: TranscriptionJob, ctx: RequestContext): FailoverCall<TranscriptionResult | UsageNote> {
  const spooled = job.upload.file;
  // a client that did not type its file part (the openai SDK's streams) gets the extension's type upstream
  const generic = spooled.mimeType === 'application/octet-stream' && isAudioExtension(spooled.extension);
  const file = { ...spooled, mimeType: generic ? AUDIO_MIME[spooled.extension as AudioExtension] : spooled.mimeType };
  return {
    prepare(deployment, handle, pool) {
      const multipart = multipartBody(upstreamFields(job.fields, deployment.upstreamModel), file);
      const headers = { 'content-type': multipart.contentType, 'content-length': String(multipart.length), accept: 'application/json', ...handle.auth };
      // undici's request() takes a real AbortSignal: the request's own (the failover loop watches a cheaper one)
      return async (): Promise<UpstreamResponse> => {
        const upload: Readable = multipart.open();
        try {
          const res = await pool.send(handle, handle.transport.path('transcriptions'), { headers, body: upload, signal: ctx.signal });
          return { statusCode: res.statusCode, headers: res.headers, body: bodyThenClose(res.body, upload) };
        } catch (err) {
          upload.destroy();
          throw err;
        }
      };
    },
    streams: () => false,
    async answer(res) {
      let text: string;
      try {
        text = await readResult(res.body);
      } catch (err) {
        if (GatewayError.is(err)) throw err;
        throw new TryNext(err); // nothing has reached the client yet: the next deployment
      }
      const { usage, result } = settleResult(job, parseUpstreamTranscript(text, header(res.headers, 'content-type')), ctx);
      return [{ note: 'usage', usage }, result];
    },
    exhausted: (failures) => exhausted(job, failures),
  };
}

export function dispatchTranscription(): StageFactory<TranscriptionJob, TranscriptionDispatchOutput> {
  return (): Stage<TranscriptionJob, TranscriptionDispatchOutput> => ({
    name: 'dispatch',
    step: (job, ctx) => failover(ctx, job.routed, transcriptionCall(job, ctx)) as AsyncIterableIterator<TranscriptionDispatchOutput>,
  });
}
