// How a committed answer's body reaches the client's chain. The failover loop (failover-loop.ts)
// is an async generator; once an answer is committed and its first content went on, nothing is
// left to decide per chunk, yet re-yielding the rest through the generator cost a promise and a
// generator resumption per chunk. So the loop hands the body itself (an UpstreamCall) off to
// `FailoverAnswer`, the iterator the dispatchers hand out, which reads it straight from then on; the body
// settles as the loop would have: its end noted in the timing when it is delivered, a failure shown
// as the loop shows a body failure (the request's abort reason, an idle stream, a lost connection).
// A body that is not an UpstreamCall (a recording's tap, a decompressed body) stays in the loop.
import type { Deployment } from '../chunks.js';
import type { RequestContext } from '../context.js';
import { GatewayError } from '../errors.js';
import { errors } from '../errors/index.js';
import type { UpstreamTiming } from '../request-log.js';
import { abortWatch } from '../request-abort.js';
import { errorCode } from './failover.js';
import type { BodySettle } from './upstream-call.js';
import type { ChunkQueue } from '../chunk-queue.js';
import type { Pulled, ReadyIterator } from '../fused-drive.js';

const EMPTY = Buffer.alloc(0);

/** A list's last item, cleared in it (the generator does not keep it in a saved register). */
export function takeLast(list: Buffer[]): Buffer {
  const k = list.length - 1;
  const chunk = list[k]!;
  list[k] = EMPTY;
  return chunk;
}

/** A list's first item, cleared in it (the generator does not keep it in a saved register). */
export function takeFirst(list: Buffer[]): Buffer {
  const chunk = list[0]!;
  list[0] = EMPTY;
  return chunk;
}

/** Thrown by `answer` when the body was lost before anything was handed on: try the next deployment. */
export class TryNext extends Error {
  constructor(readonly failure: unknown) {
    super('the answer was lost before anything was handed on');
  }
}

export function aborted(ctx: RequestContext, err: unknown): GatewayError {
  return GatewayError.from(abortWatch(ctx).reason ?? err);
}

/** A streamed body that failed: lost before any chunk went on (`TryNext`), idle, or cut mid-response. */
export function bodyFailure(ctx: RequestContext, deployment: Deployment, err: unknown, handedOn: boolean): unknown {
  if (abortWatch(ctx).aborted) return aborted(ctx, err);
  const code = errorCode(err);
  if (code === 'UND_ERR_BODY_TIMEOUT') return errors.streamIdle(deployment.providerId);
  if (!handedOn) return new TryNext(err);
  return errors.connectionLost(deployment.providerId, code, err);
}

/** The settling of a handed-on body read straight by the chain, as the loop settles one it reads. */
export class TailSettle implements BodySettle {
  constructor(
    private readonly ctx: RequestContext,
    private readonly deployment: Deployment,
    private readonly timing: UpstreamTiming,
  ) {}

  ended(): void {
    this.timing.endedAt = Date.now();
  }

  failed(err: unknown): unknown {
    this.timing.endedAt = Date.now();
    return bodyFailure(this.ctx, this.deployment, err, true);
  }
}

/**
 * The loop's output: the generator's items until it hands the body off (`handOff`, with the chunks
 * it held back, just before it yields the first of them; it is not resumed after that), then the
 * rest of those chunks and that body's chunks read straight: no hop per chunk, and a chunk that is
 * there already (held back, or queued by the body) is answered as itself (fused-drive.ts `Pulled`),
 * without a promise. Stopping early stops both.
 */
export class FailoverAnswer<T> implements ReadyIterator<T> {
  private tail: ChunkQueue | null = null;
  /** the held-back chunks still to go on before the tail's, from `heldAt` (each cleared as it goes) */
  private held: Buffer[] | null = null;
  private heldAt = 0;
  loop: AsyncGenerator<T> | null = null;

  /** the body, and the chunks held back of it: the first of them is the loop's last yield */
  handOff(tail: ChunkQueue, held: Buffer[]): void {
    this.tail = tail;
    this.heldAt = 1;
    this.held = held.length > 1 ? held : null;
  }

  next(): Pulled<T> {
    const tail = this.tail;
    if (tail === null) return this.loop!.next();
    const held = this.held;
    if (held !== null) {
      const k = this.heldAt++;
      if (this.heldAt === held.length) this.held = null;
      const chunk = held[k]!;
      held[k] = EMPTY;
      return { done: false, value: chunk as T };
    }
    // the tail's chunks are the answer's items (T includes Buffer: failover-loop.ts `Item`)
    return tail.pull() as Pulled<unknown> as Pulled<T>;
  }

  async return(): Promise<IteratorResult<T>> {
    const tail = this.tail;
    const loop = this.loop;
    this.tail = this.loop = this.held = null;
    try {
      if (tail !== null) await tail.return?.();
    } finally {
      await loop?.return(undefined);
    }
    return { done: true, value: undefined };
  }

  async throw(err: unknown): Promise<IteratorResult<T>> {
    if (this.tail === null) return this.loop!.throw(err);
    await this.return();
    throw err;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
