// Client-side encoders by wire dialect: the SSE encoder (sse-encode) and the non-streaming JSON
// encoder stage (encode) that write CanonicalEvents in the dialect the client speaks. Stages look
// the dialect up here and never name a provider.
import type { CanonicalEvent, DialectName, JsonObject } from '../chunks.js';
import type { RequestContext } from '../context.js';
import type { GatewayError } from '../errors.js';
import type { Stage } from '../stage.js';
import { anthropicJsonEncode } from './anthropic/encode-json.js';
import { AnthropicSseEncoder } from './anthropic/encode-sse.js';
import { messagesGatewayInfo } from './anthropic/gateway.js';
import { chatJsonEncode } from './openai-chat/encode-json.js';
import { ChatSseEncoder } from './openai-chat/encode-sse.js';
import { ResponsesSseEncoder, responsesJsonEncode } from './openai-responses/client-encode.js';

export interface SseEncoder {
  /** SSE text for one event; '' when the event has nothing to say to this client */
  encode(ev: CanonicalEvent): string;
  /** terminal in-band error frame(s) after output began */
  fail(err: GatewayError): string;
  /** the keep-alive frame written during provider silence */
  readonly keepalive: string;
}

export interface SseEncoderOptions {
  /** the model value the client asked for; undefined keeps the upstream value */
  clientModel: string | undefined;
  /** the request id the client sees (the `request-id` header) */
  requestId: string;
  /** the request: routed model, validated usage (ctx.usage), labels */
  ctx: RequestContext;
}

export type SseEncoderFactory = (opts: SseEncoderOptions) => SseEncoder;

export const sseEncoders: Record<DialectName, SseEncoderFactory | undefined> = {
  anthropic: (opts) => new AnthropicSseEncoder({ gateway: messagesGatewayInfo(opts.ctx), clientModel: opts.clientModel, requestId: opts.requestId }),
  'openai-chat': (opts) => new ChatSseEncoder(opts),
  'openai-responses': (opts) => new ResponsesSseEncoder(opts),
  'openai-transcriptions': undefined,
};

export interface JsonEncodeOptions {
  /** the model value the client asked for; default `ctx.routed?.request.model` */
  clientModel?: string | ((ctx: RequestContext) => string | undefined);
  /** the `gateway` routing object, added at the top level when defined */
  gatewayInfo?: (ctx: RequestContext) => JsonObject | undefined;
}

/** A fresh aggregating stage per request: collects events, writes one JSON body at flush. */
export type JsonEncoderFactory = (opts?: JsonEncodeOptions) => Stage<CanonicalEvent, string>;

export const jsonEncoders: Record<DialectName, JsonEncoderFactory | undefined> = {
  anthropic: (opts) => anthropicJsonEncode({ gatewayInfo: messagesGatewayInfo, ...opts }),
  'openai-chat': chatJsonEncode,
  'openai-responses': responsesJsonEncode,
  'openai-transcriptions': undefined,
};
