// CanonicalEvent → SSE text in the client's dialect (the registry, lib/dialects/index.ts). The encoder is built
// on the first event (or failure) for `ctx.dialect` unless the `dialect` option names one; it reads
// what the chain's notes told this stage (lib/encoder-input.ts: the routed request, the validated
// usage, the request id the client sees). `keepalive` is then that dialect's keep-alive frame;
// `fail` gives the terminal in-band error frame.
import type { CanonicalEvent, DialectName } from '../lib/chunks.js';
import type { GatewayError } from '../lib/errors.js';
import type { ChainNote } from '../lib/notes.js';
import type { RequestContext } from '../lib/context.js';
import { sseEncoders, type SseEncoder } from '../lib/dialects/index.js';
import { EncoderState, type EncoderInput } from '../lib/encoder-input.js';
import { errors } from '../lib/errors/index.js';
import { createSealer } from '../lib/search/seal.js';
import type { Stage } from '../lib/stage.js';

export interface SseEncodeOptions {
  /** the model value the client asked for (written into the stream); default the routed request's `model` */
  clientModel?: string | ((input: EncoderInput) => string | undefined);
  /** default `ctx.dialect` */
  dialect?: DialectName;
}

export interface SseEncodeStage extends Stage<CanonicalEvent, string> {
  /** the dialect's keep-alive frame, once the encoder is built (the first event); null before */
  readonly keepalive: string | null;
  steps(evs: readonly CanonicalEvent[], from: number, to: number, out: unknown[], ctx: RequestContext): number;
}

/** The encoder input of a request: kept up to date by the stage's `note` hook. */
export function encoderState(ctx: RequestContext): EncoderState {
  // offline contexts have no services: the cost is then 0
  const config = ctx.config as RequestContext['config'] | undefined;
  return new EncoderState(ctx.reqId, (ctx.services as RequestContext['services'] | undefined)?.catalog, null, createSealer(config?.webSearch?.sealKey));
}

/**
 * A class, not an object literal: a literal with a getter (`keepalive`) is made in V8's dictionary
 * mode, and this stage's `step` is looked up for every event of a stream.
 */
class SseEncodeStep implements SseEncodeStage {
  readonly name = 'sse-encode';
  /** frames of text alone */
  readonly outputsNoNotes = true;
  private encoder: SseEncoder | undefined = undefined;

  constructor(
    private readonly opts: SseEncodeOptions,
    private readonly shared: EncoderState | undefined,
    private input: EncoderState | undefined = shared,
  ) {}

  get keepalive(): string | null {
    return this.encoder?.keepalive ?? null;
  }

  private build(ctx: RequestContext): SseEncoder {
    const opts = this.opts;
    const dialect = opts.dialect ?? ctx.dialect;
    const factory = sseEncoders[dialect];
    if (factory === undefined) throw errors.noSseEncoder(dialect);
    const known = (this.input ??= encoderState(ctx));
    const m = opts.clientModel;
    const clientModel = typeof m === 'function' ? m(known) : (m ?? known.routed?.request.model ?? undefined);
    return factory({ clientModel, requestId: known.requestId, input: known });
  }

  note(n: ChainNote, ctx: RequestContext): void {
    if (this.shared === undefined) (this.input ??= encoderState(ctx)).note(n);
  }

  step(ev: CanonicalEvent, ctx: RequestContext): string[] | undefined {
    const text = (this.encoder ??= this.build(ctx)).encode(ev);
    return text === '' ? undefined : [text];
  }

  steps(evs: readonly CanonicalEvent[], from: number, to: number, out: unknown[], ctx: RequestContext): number {
    const encoder = (this.encoder ??= this.build(ctx));
    for (let k = from; k < to; k++) {
      const text = encoder.encode(evs[k]!);
      if (text !== '') out.push(text);
    }
    return to;
  }

  fail(err: GatewayError, ctx: RequestContext): string[] {
    return [(this.encoder ??= this.build(ctx)).fail(err)];
  }
}

export function sseEncode(opts: SseEncodeOptions = {}, shared?: EncoderState): SseEncodeStage {
  return new SseEncodeStep(opts, shared);
}
