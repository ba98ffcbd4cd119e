// One upstream call on undici's dispatcher API, with no stream object in between: the response head
// resolves a promise, and the body is an async iterator fed straight from undici's `onData`, with
// backpressure (undici pauses the socket when `onData` returns false, and resumes when the reader
// catches up). undici's `request()` builds a Readable body, a handler and an abort-signal listener
// around the same callbacks for every call; on the gateway's hot path that cost more than the HTTP
// parsing itself.
import type { IncomingHttpHeaders } from 'node:http';
import { util, type Dispatcher } from 'undici';

/** bytes of response body read ahead of the consumer before undici pauses the socket */
const READ_AHEAD = 64 * 1024;

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** the body; stopping early (`return`, a `break` out of for-await) aborts the call */
  body: AsyncIterableIterator<Buffer>;
}

function abortError(reason: unknown): Error {
  return reason instanceof Error ? reason : Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' });
}

/**
 * The handler of one call (undici's handler callbacks) and the reader of its body. `response`
 * resolves with the status and headers, or rejects with the transport error (its undici code
 * kept: UND_ERR_HEADERS_TIMEOUT, ECONNREFUSED...) or the signal's reason.
 */
export class UpstreamCall implements AsyncIterableIterator<Buffer> {
  readonly response: Promise<UpstreamResponse>;
  private settleHead!: { resolve: (r: UpstreamResponse) => void; reject: (err: unknown) => void } | null;
  private abortCall: ((err?: Error) => void) | null = null;
  private resumeCall: (() => void) | null = null;
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private paused = false;
  private ended = false;
  private failure: unknown = undefined;
  private waiter: { resolve: (r: IteratorResult<Buffer>) => void; reject: (err: unknown) => void } | null = null;

  constructor(private readonly signal: AbortSignal) {
    this.response = new Promise((resolve, reject) => {
      this.settleHead = { resolve, reject };
    });
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    const err = abortError(this.signal.reason);
    if (this.abortCall !== null) this.abortCall(err);
    else this.onError(err); // not connected yet: undici is told at onConnect
  };

  private finish(): void {
    this.signal.removeEventListener('abort', this.onAbort);
  }

  // undici's handler callbacks

  onConnect(abort: (err?: Error) => void): void {
    if (this.signal.aborted || this.failure !== undefined) abort(abortError(this.signal.reason ?? this.failure));
    else this.abortCall = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    this.resumeCall = resume;
    const head = this.settleHead;
    this.settleHead = null;
    head?.resolve({ statusCode, headers: util.parseHeaders(rawHeaders) as IncomingHttpHeaders, body: this });
    return true;
  }

  onData(chunk: Buffer): boolean {
    const w = this.waiter;
    if (w !== null) {
      this.waiter = null;
      w.resolve({ done: false, value: chunk });
      return true;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued > READ_AHEAD) {
      this.paused = true;
      return false;
    }
    return true;
  }

  onComplete(): void {
    this.ended = true;
    this.finish();
    const w = this.waiter;
    if (w !== null) {
      this.waiter = null;
      w.resolve(DONE);
    }
  }

  onError(err: Error): void {
    this.finish();
    if (this.failure === undefined) this.failure = err;
    const head = this.settleHead;
    if (head !== null) {
      this.settleHead = null;
      head.reject(err);
      return;
    }
    const w = this.waiter;
    if (w !== null) {
      this.waiter = null;
      w.reject(this.failure);
    }
  }

  // the body

  next(): Promise<IteratorResult<Buffer>> {
    if (this.queue.length > 0) {
      const chunk = this.queue.shift()!;
      this.queued -= chunk.length;
      if (this.paused && this.queued <= READ_AHEAD) {
        this.paused = false;
        this.resumeCall?.();
      }
      return Promise.resolve({ done: false, value: chunk });
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The reader stops early: the call is aborted (its connection is not reused). */
  return(): Promise<IteratorResult<Buffer>> {
    if (!this.ended && this.failure === undefined) {
      const err = abortError(undefined);
      this.failure = err;
      this.finish();
      this.abortCall?.(err);
    }
    this.queue.length = 0;
    this.queued = 0;
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** Start a call on `dispatcher`; resolves with the response head (the body is read from it). */
export function dispatchCall(dispatcher: Dispatcher, opts: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<UpstreamResponse> {
  const call = new UpstreamCall(signal);
  if (signal.aborted) call.onError(abortError(signal.reason));
  else dispatcher.dispatch(opts, call as unknown as Dispatcher.DispatchHandler);
  return call.response;
}
