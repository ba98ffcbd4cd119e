// The providers' side: every deployment failed, a provider's own error passed on, a broken answer.
import { defineError, type ErrorOptions, type GatewayError, type UpstreamErrorInfo } from '../errors.js';

/** the provider's retry-after, passed on to the client */
function retryAfter(up: UpstreamErrorInfo | undefined): Record<string, string> {
  return up?.retryAfter !== undefined && up.retryAfter !== '' ? { 'retry-after': up.retryAfter } : {};
}

/** a provider's own error, kept whole in `upstream` (a same-dialect client sees its status and wording) */
function relayed(up: UpstreamErrorInfo): ErrorOptions {
  return { upstream: up, headers: retryAfter(up) };
}

/** "All 2 provider deployment(s) of model m failed: <detail>; <detail>" */
function allFailed(model: string, details: readonly string[]): string {
  return `All ${details.length} provider deployment(s) of model ${model} failed: ${details.join('; ')}`;
}

/** an in-band error event after HTTP 200: the provider's words, inference had begun */
function inBand(up: UpstreamErrorInfo): ErrorOptions {
  return { upstream: up, providerWork: true };
}

export const upstreamErrors = {
  // every deployment failed (failover exhausted); `details` has one entry per failed deployment
  deploymentsFailed: defineError('GW_ERR_PROVIDER_UNAVAILABLE', (model: string, details: readonly string[], last?: UpstreamErrorInfo) => allFailed(model, details), (_m, _d, last) => (last ? relayed(last) : {})),
  deploymentsTimedOut: defineError('GW_ERR_UPSTREAM_TIMEOUT', (model: string, details: readonly string[], last?: UpstreamErrorInfo) => allFailed(model, details), (_m, _d, last) => (last ? relayed(last) : {})),
  /** none of the model's deployment APIs (`apis`) is reachable from this endpoint */
  noReachableDeployment: defineError('GW_ERR_PROVIDER_UNAVAILABLE', (model: string, apis: readonly string[]) => `No deployment of model ${model} can serve this request: none of its \`models[].deployments[].api\` in the gateway config (${apis.join(', ')}) is reachable from this endpoint.`),
  noTranscriptionDeployment: defineError('GW_ERR_PROVIDER_UNAVAILABLE', (model: string) => `No deployment of model ${model} can serve transcriptions: it needs a deployment with "api": "transcriptions" on an openai provider in \`models[].deployments\` of the gateway config.`),
  // the last deployment's HTTP error, passed on with its wording
  upstreamRateLimited: defineError('GW_ERR_UPSTREAM_RATE_LIMITED', (up: UpstreamErrorInfo) => up.message, relayed),
  upstreamOverloaded: defineError('GW_ERR_UPSTREAM_OVERLOADED', (up: UpstreamErrorInfo) => up.message, relayed),
  upstreamUnavailable: defineError('GW_ERR_PROVIDER_UNAVAILABLE', (up: UpstreamErrorInfo) => up.message, relayed),
  /** a provider client error that is not failed over: its own status and wording */
  upstreamRefused: defineError('GW_ERR_UPSTREAM', (up: UpstreamErrorInfo) => up.message, (up) => ({ ...relayed(up), status: up.status })),
  upstreamCredentialsRejected: defineError('GW_ERR_UPSTREAM', (provider: string, status: number) => `The provider ${provider} rejected the gateway's credentials (HTTP ${status}); this is a gateway configuration problem.`, { status: 502 }),
  // the stream itself
  streamIdle: defineError('GW_ERR_STREAM_IDLE', (provider: string) => `The provider ${provider} went silent for longer than the idle timeout.`),
  connectionLost: defineError('GW_ERR_UPSTREAM', (provider: string, code: string, cause: unknown) => `The connection to the provider ${provider} was lost mid-response (${code}).`, (_p, _c, cause) => ({ status: 502, cause })),
  /** a provider answer that breaks a rule (order, one finish, usage, JSON shape); inference had begun */
  integrity: defineError('GW_ERR_INTEGRITY', (detail: string, cause?: unknown) => `The provider response failed an integrity check: ${detail}`, (_d, cause) => (cause === undefined ? { providerWork: true } : { cause, providerWork: true })),
  /** `problem` continues "The provider's transcription ..." */
  transcriptionAnswerInvalid: defineError('GW_ERR_INTEGRITY', (problem: string) => `The provider's transcription ${problem}`),
  transcriptionAnswerTooLarge: defineError('GW_ERR_INTEGRITY', (limit: number) => `The provider's transcription answer is larger than ${limit} bytes.`),
};

export type InBandCode = 'GW_ERR_UPSTREAM' | 'GW_ERR_UPSTREAM_RATE_LIMITED' | 'GW_ERR_UPSTREAM_OVERLOADED' | 'GW_ERR_UPSTREAM_TIMEOUT';

/** in-band error events after HTTP 200, one per code a dialect's table maps a provider error type to */
const IN_BAND = {
  GW_ERR_UPSTREAM: defineError('GW_ERR_UPSTREAM', (up: UpstreamErrorInfo) => up.message, inBand),
  GW_ERR_UPSTREAM_RATE_LIMITED: defineError('GW_ERR_UPSTREAM_RATE_LIMITED', (up: UpstreamErrorInfo) => up.message, inBand),
  GW_ERR_UPSTREAM_OVERLOADED: defineError('GW_ERR_UPSTREAM_OVERLOADED', (up: UpstreamErrorInfo) => up.message, inBand),
  GW_ERR_UPSTREAM_TIMEOUT: defineError('GW_ERR_UPSTREAM_TIMEOUT', (up: UpstreamErrorInfo) => up.message, inBand),
} satisfies Record<InBandCode, unknown>;

/** A provider's in-band error (its words, kept whole in `upstream`) under the code a dialect's table gives its type. */
export function inBandUpstream(code: InBandCode, up: UpstreamErrorInfo): GatewayError {
  return IN_BAND[code](up);
}
