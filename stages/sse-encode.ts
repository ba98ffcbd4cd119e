// CanonicalEvent → SSE text in the client's dialect (the registry, lib/dialects/index.ts). The encoder is built
// on the first event (or failure) for `ctx.dialect` unless the `dialect` option names one, and sets
// `ctx.keepalive` to that dialect's keep-alive frame. `fail` gives the terminal in-band error frame.
import type { CanonicalEvent, DialectName } from '../lib/chunks.js';
import { publicRequestId, type RequestContext } from '../lib/context.js';
import { sseEncoders, type SseEncoder } from '../lib/dialects/index.js';
import { GatewayError } from '../lib/errors.js';
import type { Stage } from '../lib/stage.js';

export interface SseEncodeOptions {
  /** the model value the client asked for (written into the stream); default `ctx.routed?.request.model` */
  clientModel?: string | ((ctx: RequestContext) => string | undefined);
  /** default `ctx.dialect` */
  dialect?: DialectName;
}

export function sseEncode(opts: SseEncodeOptions = {}): Stage<CanonicalEvent, string> {
  let encoder: SseEncoder | undefined;

  function build(ctx: RequestContext): SseEncoder {
    const dialect = opts.dialect ?? ctx.dialect;
    const factory = sseEncoders[dialect];
    if (factory === undefined) throw new GatewayError('GW_ERR_INTERNAL', `sse-encode: no SSE encoder for the ${dialect} dialect`);
    const m = opts.clientModel;
    const clientModel = typeof m === 'function' ? m(ctx) : (m ?? ctx.routed?.request.model ?? undefined);
    const built = factory({ clientModel, requestId: publicRequestId(ctx), ctx });
    ctx.keepalive = built.keepalive;
    return built;
  }

  return {
    name: 'sse-encode',
    step(ev, ctx) {
      const text = (encoder ??= build(ctx)).encode(ev);
      return text === '' ? undefined : [text];
    },
    fail(err, ctx) {
      return [(encoder ??= build(ctx)).fail(err)];
    },
  };
}
