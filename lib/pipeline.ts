// Runs an endpoint's chain: request bytes → stages → response, with stream/promises `pipeline`, so a
// failure anywhere tears the whole chain down and an abort (client gone) cancels the upstream call.
// Single exit: before the first response byte an error becomes the dialect's JSON envelope; after
// it, the last stage's `fail` frames end the stream in-band. Every stage's `close` runs exactly once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { publicRequestId, type RequestContext } from './context.js';
import { GatewayError } from './errors.js';
import { renderError } from './dialects/errors.js';
import { fuseStages, type Stage, type StageFactory } from './stage.js';

/** A typed list of stage factories: `then` only accepts a stage whose input is the last output. */
export class Chain<I, O> {
  private constructor(readonly factories: readonly StageFactory<unknown, unknown>[]) {}
  static of<I, O>(first: StageFactory<I, O>): Chain<I, O> {
    return new Chain<I, O>([first as StageFactory<unknown, unknown>]);
  }
  then<P>(next: StageFactory<O, P>): Chain<I, P> {
    return new Chain<I, P>([...this.factories, next as StageFactory<unknown, unknown>]);
  }
}

/** The request body as a Readable that can be torn down without destroying the socket (so a 413 can still be written). */
function requestSource(req: IncomingMessage): Readable {
  const source = new Readable({
    read() {
      req.resume();
    },
    destroy(err, cb) {
      req.off('data', onData);
      req.resume(); // discard whatever is left; never buffer it
      cb(err);
    },
  });
  const onData = (chunk: Buffer): void => {
    if (!source.push(chunk)) req.pause();
  };
  req.on('data', onData);
  req.once('end', () => source.push(null));
  req.once('error', (err) => source.destroy(err));
  return source;
}

/** Write an error response (before any byte went out) in the client's dialect. */
export function writeError(ctx: RequestContext, res: ServerResponse, error: GatewayError, bodyUnread = false): void {
  const rendered = renderError(ctx.dialect, error, publicRequestId(ctx));
  ctx.outcome = { status: rendered.status, errorCode: error.code };
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | string[]> = { ...ctx.response.headers, ...rendered.headers };
  // An oversized upload is cut off: the connection closes rather than read the rest. Any other early
  // error lets Node discard the unread body, so a client still sending sees the answer, not EPIPE.
  if (bodyUnread && (error.code === 'GW_ERR_BODY_TOO_LARGE' || error.code === 'GW_ERR_FILE_TOO_LARGE')) headers.connection = 'close';
  headers['content-length'] = String(Buffer.byteLength(rendered.body));
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
  ctx.response.sent = true;
}

function responseSink(ctx: RequestContext, res: ServerResponse, pingMs: number): Writable {
  // one timer per streaming response (not one per frame): it wakes when the silence may have reached
  // the ping interval and writes the dialect's keep-alive frame if nothing went out meanwhile
  let timer: NodeJS.Timeout | null = null;
  let lastWrite = 0;
  const ping = (): void => {
    timer = null;
    if (ctx.keepalive === null || res.destroyed || res.writableEnded) return;
    const idle = Date.now() - lastWrite;
    if (idle >= pingMs) {
      res.write(ctx.keepalive);
      lastWrite = Date.now();
    }
    timer = setTimeout(ping, idle >= pingMs ? pingMs : pingMs - idle);
  };
  const head = (): void => {
    if (ctx.response.sent) return;
    res.writeHead(ctx.response.status, ctx.response.headers);
    ctx.response.sent = true;
    ctx.outcome ??= { status: ctx.response.status };
  };
  return new Writable({
    objectMode: true,
    highWaterMark: 1,
    write(chunk: string | Buffer, _enc, cb) {
      head();
      const ok = res.write(chunk);
      lastWrite = Date.now();
      if (timer === null && ctx.keepalive !== null) timer = setTimeout(ping, pingMs);
      if (ok) cb();
      else res.once('drain', () => cb());
    },
    final(cb) {
      if (timer) clearTimeout(timer);
      head();
      res.end(cb);
    },
    destroy(err, cb) {
      if (timer) clearTimeout(timer);
      cb(err);
    },
  });
}

export async function runPipeline<O extends string | Buffer>(ctx: RequestContext, req: IncomingMessage, res: ServerResponse, chain: Chain<Buffer, O>): Promise<void> {
  const stages: Stage<unknown, unknown>[] = chain.factories.map((f) => f(ctx));
  let error: GatewayError | undefined;
  let bodyEnded = false;
  req.once('end', () => {
    bodyEnded = true;
  });
  try {
    await pipeline(requestSource(req), fuseStages<O>(stages, ctx), responseSink(ctx, res, ctx.config.pingIntervalMs), { signal: ctx.signal });
  } catch (err) {
    error = GatewayError.is(err) ? err : GatewayError.from(ctx.signal.aborted ? (ctx.signal.reason ?? err) : err);
    if (error.code === 'GW_ERR_INTERNAL') ctx.log.error({ err: (err as Error)?.stack ?? String(err) }, 'unexpected error in the pipeline');
    error.providerWork = ctx.providerWork;
  }
  if (error) {
    if (!ctx.response.sent) {
      writeError(ctx, res, error, !bodyEnded && !req.complete);
    } else {
      ctx.outcome = { status: ctx.response.status, errorCode: error.code };
      // the encoder (the last stage that knows the client's framing) writes the in-band terminal frames
      const encoder = [...stages].reverse().find((s) => s.fail !== undefined);
      if (!res.destroyed && !res.writableEnded) {
        for (const frame of encoder?.fail?.(error, ctx) ?? []) res.write(frame as string);
        res.end();
      }
    }
  }
  for (const stage of stages) {
    try {
      await stage.close?.(ctx, error);
    } catch (err) {
      ctx.log.error({ stage: stage.name, err: (err as Error)?.stack ?? String(err) }, 'stage close failed');
    }
  }
}
