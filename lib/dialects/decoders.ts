// Upstream decoders by wire dialect: what provider-decode uses to turn one SSE message or one whole
// JSON body into CanonicalEvents. Stages look the dialect up here and never name a provider.
import type { CanonicalEvent, DialectName } from '../chunks.js';
import type { RequestContext } from '../context.js';
import { decodeAnthropicSse } from './anthropic/events.js';
import { decodeAnthropicMessage } from './anthropic/message.js';

export interface UpstreamDecoder {
  /** one SSE message (event name may be absent in data-only dialects) */
  sse(msg: { event: string | undefined; data: string }): CanonicalEvent[];
  /** one whole non-streaming response body */
  json(body: string): CanonicalEvent[];
}

export const upstreamDecoders: Record<DialectName, UpstreamDecoder | undefined> = {
  anthropic: { sse: decodeAnthropicSse, json: decodeAnthropicMessage },
  'openai-chat': undefined,
  'openai-responses': undefined,
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
