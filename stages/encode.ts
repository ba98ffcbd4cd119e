// encode: CanonicalEvent → response text in the client's dialect. Picks the SSE encoder or the
// non-streaming JSON encoder from the request's `stream` field (never from `Accept`), and sets the
// matching response headers before the first byte.
import type { CanonicalEvent } from '../lib/chunks.js';
import { jsonEncoders } from '../lib/dialects/index.js';
import { GatewayError } from '../lib/errors.js';
import type { Stage, StageFactory } from '../lib/stage.js';
import { sseEncode } from './sse-encode.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

export function encodeResponse(): StageFactory<CanonicalEvent, string> {
  return (ctx): Stage<CanonicalEvent, string> => {
    let inner: Stage<CanonicalEvent, string> | undefined;
    const pick = (): Stage<CanonicalEvent, string> => {
      if (inner) return inner;
      if (ctx.routed?.request.stream) {
        Object.assign(ctx.response.headers, SSE_HEADERS);
        inner = sseEncode();
      } else {
        const factory = jsonEncoders[ctx.dialect];
        if (!factory) throw new GatewayError('GW_ERR_INTERNAL', `no JSON encoder for the ${ctx.dialect} dialect`);
        ctx.response.headers['content-type'] = 'application/json';
        ctx.response.whole = true;
        inner = factory();
      }
      return inner;
    };
    return {
      name: 'encode',
      step: (ev, c) => pick().step(ev, c),
      flush: (c) => pick().flush?.(c),
      fail: (err, c) => pick().fail?.(err, c) ?? [],
    };
  };
}
