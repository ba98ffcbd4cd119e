// Runs an endpoint's chain: request bytes → stages → response. The stages are fused into one chain
// (`startFused`) and driven directly: the body comes from node:http's 'data' events, each
// piece goes out as one `res.write`, backpressure is honoured both ways, and an abort (client gone,
// shutdown) ends every wait: the upstream call through `ctx.signal`, the request body at once. (A
// stream/promises `pipeline` of Transforms runs the same stages too, see `toTransform`; per request
// its streams and abort machinery cost more than the gateway's validation, so the server does not
// use it.) The notes that reach the end of the chain go to the response writer (ResponseSink),
// which alone writes the head. Single exit: before the first response byte an error becomes the
// dialect's JSON envelope (with the headers the notes gave so far); after it, the last stage's
// `fail` frames end the stream in-band. Every stage's `close` runs exactly once, told the outcome.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from './context.js';
import { GatewayError } from './errors.js';
import { keepaliveFrames, renderError } from './dialects/index.js';
import type { ChainNote, Outcome } from './notes.js';
import { asAsyncIterator, ENDED, isReady, type Pulled, type READY } from './fused-drive.js';
import { startFused } from './fused-chain.js';
import type { Stage, StageFactory, Values } from './stage.js';
import { ChunkReader, ResponseSink } from './request-io.js';
import { closesAfterRefusal, lingerOnClose } from './linger.js';
import { watchBody } from './body-clock.js';
import { errors } from './errors/index.js';
import { StageTimings } from './stage-timings.js';
import { answerAlone, answerEnded, answerStarted } from './answers-running.js';
import { abortWatch } from './request-abort.js';

/**
 * A typed list of stage factories: `then` only accepts a stage whose input is the last output's
 * values; the notes output along the way stay in the type (the response writer gets them).
 */
export class Chain<I, O> {
  private constructor(readonly factories: readonly StageFactory<unknown, unknown>[]) {}
  static of<I, O>(first: StageFactory<I, O>): Chain<I, O> {
    return new Chain<I, O>([first as StageFactory<unknown, unknown>]);
  }
  then<P>(next: StageFactory<Values<O>, P>): Chain<I, P | Extract<O, ChainNote>> {
    return new Chain<I, P | Extract<O, ChainNote>>([...this.factories, next as StageFactory<unknown, unknown>]);
  }
}

/**
 * Write an error response (before any byte went out) in the client's dialect, with the headers the
 * answer had so far (`headers`: the request id, and what the chain's notes added); what the client got.
 */
export function writeError(ctx: RequestContext, res: ServerResponse, error: GatewayError, bodyUnread = false, headersSoFar: Readonly<Record<string, string | string[]>> = ctx.responseHeaders, requestId = ctx.reqId): Outcome {
  const rendered = renderError(ctx.dialect, error, requestId);
  const outcome: Outcome = { status: rendered.status, errorCode: error.code };
  if (res.headersSent || res.destroyed) return outcome;
  const headers: Record<string, string | string[]> = Object.assign({}, headersSoFar, rendered.headers);
  // A body refused before it was read is never read to its end: an oversized, too slow or unaffordable
  // one, or a large or chunked one, is cut off (the connection closes, with a lingering close so the
  // client reads the answer, not a reset); a small declared one is read and dropped within the drain
  // time (lib/server.ts) and the connection kept.
  const limits = ctx.config.connections;
  if (bodyUnread && closesAfterRefusal(error.code, ctx.headers, limits.refusedBodyDrainBytes)) {
    headers.connection = 'close';
    lingerOnClose(res.socket, limits.refusedBodyDrainMs);
  }
  headers['content-length'] = String(Buffer.byteLength(rendered.body));
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
  return outcome;
}

/**
 * Run the chain on the request and write what it outputs; every stage's `close` runs once, told the
 * outcome. The fused chain is driven in place (not by a function of its own: one async call and one
 * await fewer per request): work it until a piece is ready, write it, wait only when the socket asks
 * to or the chain awaits an item (the upstream body's next chunk). The chain is worked here, not
 * through an async generator: a piece ready at once goes to the socket without a promise between.
 * The abort is checked where a generator's consumer would see it (a piece ready, the end, after a
 * drain wait), never between an awaited item and its feeding. Nothing here races the abort: every
 * wait of a chain ends by itself when the request aborts (the upstream call and its body through
 * `ctx.signal`, the request body through `body.fail`, a drain wait on 'close', a hold within its
 * event-loop turn), so no promise per step is spent on it. A stage's failure closes the chain's
 * open async iterables before it goes on (`close(true)`), as a generator's `finally` would.
 */
export async function runPipeline<O extends string | Buffer | ChainNote>(ctx: RequestContext, req: IncomingMessage, res: ServerResponse, chain: Chain<Buffer, O>): Promise<void> {
  const timings = ctx.logsDebug === true ? new StageTimings() : null;
  const built: Stage<unknown, unknown>[] = [];
  try {
    for (const f of chain.factories) built.push(f(ctx));
  } catch (err) {
    // a factory refused the request (parse-body: a declared length over a limit): the stages already
    // built are closed, as every built stage is (parse-body gives its memory lease back)
    for (const stage of built) await stage.close?.(ctx, GatewayError.from(err));
    throw err;
  }
  const stages = timings === null ? built : built.map((s) => timings.wrap(s));
  let error: GatewayError | undefined;
  // the reader hears the body's end even after it stopped reading (`sourceEnded`)
  const body = new ChunkReader(req);
  // a body that comes too slowly fails the chain with 408 (the chain reads the whole body before it
  // calls a provider, so this never cuts a response)
  const limits = ctx.config.connections;
  const clock = watchBody(req, limits, (late) => body.fail(errors.bodyTooSlow(late.received, late.elapsedMs, limits.bodyGraceMs, limits.bodyMinBytesPerSecond)));
  const sink = new ResponseSink(ctx, res, ctx.config.pingIntervalMs, keepaliveFrames[ctx.dialect] ?? null);
  // the chain reads the body through `pull`: a chunk already queued, or the end, without a turn
  const fused = startFused<string | Buffer>(stages, ctx, sink.note, asAsyncIterator(body.readyReads()));
  // an abort (client gone, shutdown) ends a wait for more request body at once
  const signal = abortWatch(ctx);
  const onAbort = (): void => body.fail(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  answerStarted();
  try {
    if (signal.aborted) throw signal.reason;
    for (;;) {
      let w: Pulled<unknown> | typeof READY | typeof ENDED;
      try {
        w = fused.work();
        while (typeof w !== 'number') {
          // an item already there (fused-drive.ts `Pulled`) is fed at once: no wait, so nothing to hold
          // or release either (the next wait decides)
          if (isReady(w)) {
            fused.received(w);
            w = fused.work();
            continue;
          }
          // a wait for the store alone keeps this turn's writes for the next one (request-io.ts), when
          // other answers are running (lib/answers-running.ts): then the write it saves is CPU the
          // others wait for (the bench's stream rows: 10–35 % more answers a second at 16 and 64
          // connections); alone, the gateway writes at once and the client reads the answer while the
          // commit runs (held, an idle gateway's answer came 0.14–0.37 ms later at concurrency 1)
          if (fused.awaitsStoreOnly()) {
            if (!answerAlone()) sink.holdForStore();
          } else sink.release();
          let r: IteratorResult<unknown>;
          try {
            r = await w;
          } catch (err) {
            fused.sourceFailed();
            throw err;
          }
          fused.received(r);
          w = fused.work();
        }
      } catch (err) {
        const closing = fused.close(true);
        if (closing !== undefined) await closing;
        throw err;
      }
      if (signal.aborted) throw signal.reason;
      if (w === ENDED) break;
      const wait = sink.write(fused.take(), answerAlone());
      if (wait !== undefined) await wait;
      if (signal.aborted) throw signal.reason;
    }
    sink.end();
  } catch (err) {
    sink.stopTimer();
    body.fail(err);
    fused.close(false)?.catch(() => undefined); // closes what is still open (a failure of the chain closed it already)
    error = GatewayError.is(err) ? err : GatewayError.from(signal.aborted ? (signal.reason ?? err) : err);
    if (error.code === 'GW_ERR_INTERNAL') ctx.log.error({ err: (err as Error)?.stack ?? String(err) }, 'unexpected error in the pipeline');
    error.providerWork = sink.providerWork;
  }
  answerEnded();
  signal.removeEventListener('abort', onAbort);
  clock.stop();
  let outcome: Outcome = sink.outcome();
  if (error) {
    if (!sink.sent) {
      outcome = writeError(ctx, res, error, !body.sourceEnded && !req.complete, sink.headers, sink.requestId());
    } else {
      outcome = { status: outcome.status, errorCode: error.code };
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
      // awaited only when it is asynchronous (settle's): a synchronous close costs no microtask turn
      const closing = stage.close?.(ctx, error, outcome);
      if (closing !== undefined) await closing;
    } catch (err) {
      ctx.log.error({ stage: stage.name, err: (err as Error)?.stack ?? String(err) }, 'stage close failed');
    }
  }
  if (timings !== null) ctx.log.debug({ stageMs: timings.report() }, 'stage timings');
}
