// Upstream decoders by wire dialect: what provider-decode uses to turn one SSE message or one whole
// JSON body into CanonicalEvents. Stages look the dialect up here and never name a provider.
import type { CanonicalEvent, DialectName } from '../chunks.js';
import type { RequestContext } from '../context.js';
import { decodeAnthropicSse } from './anthropic/events.js';
import { decodeAnthropicMessage } from './anthropic/message.js';
import { chatDecoder } from './openai-chat/events.js';
import { responsesDecoder } from './openai-responses/events.js';

export interface UpstreamDecoder {
  /** one SSE message (event name may be absent in data-only dialects) */
  sse(msg: { event: string | undefined; data: string }): CanonicalEvent[];
  /** one whole non-streaming response body */
  json(body: string): CanonicalEvent[];
  /** the upstream body ended: events still owed (a chat stream that ended without [DONE]) */
  end?(): CanonicalEvent[];
}

/** A decoder per response: stateful dialects (chat) need a fresh one each time. */
export type UpstreamDecoderFactory = () => UpstreamDecoder;

const anthropicDecoder: UpstreamDecoder = { sse: decodeAnthropicSse, json: decodeAnthropicMessage };

export const upstreamDecoders: Record<DialectName, UpstreamDecoderFactory | undefined> = {
  anthropic: () => anthropicDecoder,
  'openai-chat': chatDecoder,
  'openai-responses': responsesDecoder,
  'openai-transcriptions': undefined,
};

/** The wire dialect an upstream speaks, from the provider that answered (protocol + api). */
export function upstreamDialect(provider: RequestContext['provider']): DialectName | undefined {
  if (provider === null) return undefined;
  if (provider.protocol === 'anthropic') return 'anthropic';
  switch (provider.api) {
    case 'chat':
      return 'openai-chat';
    case 'responses':
      return 'openai-responses';
    case 'transcriptions':
      return 'openai-transcriptions';
    default:
      return undefined;
  }
}
