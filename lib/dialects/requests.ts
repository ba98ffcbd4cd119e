// Registry of request encoders: (client dialect, deployment API) → the upstream request. A
// same-dialect pair forwards the validated body natively; other pairs translate.
import type { Deployment, DialectName, RoutedRequest } from '../chunks.js';
import { GatewayError } from '../errors.js';
import { anthropicNative } from './anthropic/request.js';
import { chatNative } from './openai-chat/request.js';
import { anthropicToResponses } from './openai-responses/request-from-messages.js';
import { chatToResponses } from './openai-responses/request-from-chat.js';
import { responsesNative, responsesToAnthropic, responsesToChat } from './openai-responses/client-request.js';
import { chatToAnthropic } from './translate/chat-to-messages.js';
import { anthropicToChat } from './translate/messages-to-chat.js';

export interface UpstreamCall {
  body: string;
  /** protocol-specific headers (betas, forwarded headers); auth and content-type are added by dispatch */
  headers: Record<string, string>;
  stream: boolean;
}

/** What dispatch sends: a native encoder may hand over JSON bytes spliced from the client's bytes. */
export type EncodedCall = Omit<UpstreamCall, 'body'> & { body: string | Buffer };

export type RequestEncoder = (routed: RoutedRequest, deployment: Deployment) => EncodedCall;
type Pair = `${DialectName}>${Deployment['api']}`;

const encoders = new Map<Pair, RequestEncoder>([
  ['anthropic>messages', anthropicNative],
  ['anthropic>chat', anthropicToChat],
  ['openai-chat>messages', chatToAnthropic],
  ['openai-chat>chat', chatNative],
  ['anthropic>responses', anthropicToResponses],
  ['openai-chat>responses', chatToResponses],
  ['openai-responses>messages', responsesToAnthropic],
  ['openai-responses>chat', responsesToChat],
  ['openai-responses>responses', responsesNative],
]);

export function registerRequestEncoder(source: DialectName, api: Deployment['api'], encoder: RequestEncoder): void {
  encoders.set(`${source}>${api}`, encoder);
}

export function canEncode(source: DialectName, api: Deployment['api']): boolean {
  return encoders.has(`${source}>${api}`);
}

export function encodeUpstreamRequest(routed: RoutedRequest, deployment: Deployment): EncodedCall {
  const encoder = encoders.get(`${routed.request.source}>${deployment.api}`);
  if (!encoder) {
    throw new GatewayError('GW_ERR_CAPABILITY_REJECTED', `capability_rejected: model: model "${routed.modelId}" is served through the ${deployment.api} API, which this endpoint cannot reach yet (\`models[].deployments[].api\` in the gateway config). Pin another model or use another endpoint.`, { param: 'model' });
  }
  return encoder(routed, deployment);
}
