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
import { errorCode, finalUpstreamError, header, isRetryableStatus, transportFailure, upstreamError, type Failure } from '../lib/providers/failover.js';
import { priceOf } from '../lib/pricing.js';
import type { Upstream, UpstreamNote, UsageNote } from '../lib/notes.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import {
  AUDIO_MIME, estimatedTokens, isAudioExtension, multipartBody, parseUpstreamTranscript,
  type AudioExtension, type TranscriptionFields, type UpstreamTranscript,
} from '../lib/dialects/index.js';
import type { TranscriptionJob, TranscriptionResult } from './transcribe.js';

const MAX_ERROR_BODY = 64 * 1024;
/** a transcript of 25 MB of audio is far smaller; anything larger is not a transcription */
const MAX_RESULT_BODY = 8 * 1024 * 1024;

class TooLong extends Error {}

async function readText(body: AsyncIterable<Buffer>, limit: number, truncate: boolean): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > limit && !truncate) throw new TooLong();
    if (size < limit) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, limit);
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

function exhausted(job: TranscriptionJob, failures: Failure[]): GatewayError {
  const last = failures[failures.length - 1];
  if (last === undefined) return new GatewayError('GW_ERR_PROVIDER_UNAVAILABLE', `No deployment of model ${job.routed.modelId} can serve transcriptions: it needs a deployment with "api": "transcriptions" on an openai provider in \`models[].deployments\` of the gateway config.`);
  const message = `All ${failures.length} provider deployment(s) of model ${job.routed.modelId} failed: ${failures.map((f) => f.detail).join('; ')}`;
  const retryAfter = last.upstream?.retryAfter;
  const headers: Record<string, string> = retryAfter !== undefined ? { 'retry-after': retryAfter } : {};
  const opts = { headers, ...(last.upstream ? { upstream: last.upstream } : {}) };
  return new GatewayError(failures.every((f) => f.kind === 'timeout') ? 'GW_ERR_UPSTREAM_TIMEOUT' : 'GW_ERR_PROVIDER_UNAVAILABLE', message, opts);
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

async function* call(job: TranscriptionJob, ctx: RequestContext): AsyncGenerator<TranscriptionDispatchOutput> {
  const pool = ctx.services.providers;
  const failures: Failure[] = [];
  const spooled = job.upload.file;
  // a client that did not type its file part (the openai SDK's streams) gets the extension's type upstream
  const generic = spooled.mimeType === 'application/octet-stream' && isAudioExtension(spooled.extension);
  const file = { ...spooled, mimeType: generic ? AUDIO_MIME[spooled.extension as AudioExtension] : spooled.mimeType };
  for (const deployment of job.routed.deployments) {
    const handle = pool.get(deployment.providerId);
    const multipart = multipartBody(upstreamFields(job.fields, deployment.upstreamModel), file);
    const headers = { 'content-type': multipart.contentType, 'content-length': String(multipart.length), accept: 'application/json', ...handle.auth };
    const body: Readable = multipart.open();
    let res;
    const sentAt = Date.now();
    try {
      res = await pool.send(handle, handle.transport.path('transcriptions'), { headers, body, signal: ctx.signal });
    } catch (err) {
      body.destroy();
      if (ctx.signal.aborted) throw GatewayError.from(ctx.signal.reason ?? err);
      failures.push(transportFailure(err, deployment, true));
      ctx.log.warn({ provider: deployment.providerId, err: errorCode(err) }, 'upstream call failed; trying the next deployment');
      continue;
    }
    const requestId = header(res.headers, handle.transport.requestIdHeader);
    const headersAt = Date.now();
    let text: string;
    try {
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      text = await readText(res.body, ok ? MAX_RESULT_BODY : MAX_ERROR_BODY, !ok);
    } catch (err) {
      if (ctx.signal.aborted) throw GatewayError.from(ctx.signal.reason ?? err);
      if (err instanceof TooLong) throw new GatewayError('GW_ERR_INTEGRITY', `The provider's transcription answer is larger than ${MAX_RESULT_BODY} bytes.`);
      failures.push(transportFailure(err, deployment, true));
      ctx.log.warn({ provider: deployment.providerId, err: errorCode(err) }, 'upstream answer failed; trying the next deployment');
      continue;
    } finally {
      body.destroy();
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      const upstream = upstreamError(deployment, handle.transport, res.statusCode, res.headers, text);
      if (isRetryableStatus(res.statusCode)) {
        failures.push({ deployment, kind: 'http', upstream, detail: `${deployment.providerId}: HTTP ${res.statusCode}` });
        ctx.log.warn({ provider: deployment.providerId, status: res.statusCode }, 'upstream error; trying the next deployment');
        continue;
      }
      throw finalUpstreamError(deployment, upstream);
    }
    const answered: Upstream = {
      id: deployment.providerId,
      protocol: deployment.protocol,
      api: deployment.api,
      upstreamModel: deployment.upstreamModel,
      stream: false,
      ...(requestId !== undefined ? { requestId } : {}),
      timing: { sentAt, headersAt, endedAt: Date.now() },
    };
    yield { note: 'upstream', upstream: answered };
    const { usage, result } = settleResult(job, parseUpstreamTranscript(text, header(res.headers, 'content-type')), ctx);
    yield { note: 'usage', usage };
    yield result;
    return;
  }
  throw exhausted(job, failures);
}

export function dispatchTranscription(): StageFactory<TranscriptionJob, TranscriptionDispatchOutput> {
  return (): Stage<TranscriptionJob, TranscriptionDispatchOutput> => ({
    name: 'dispatch',
    step: (job, ctx) => call(job, ctx),
  });
}
