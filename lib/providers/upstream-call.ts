// One upstream call on undici's dispatcher API, with no stream object in between: the response head
// resolves a promise, and the body is an async iterator fed straight from undici's `onData`, with
// backpressure (undici pauses the socket when `onData` returns false, and resumes when the reader
// catches up). undici's `request()` builds a Readable body, a handler and an abort-signal listener
// around the same callbacks for every call; on the gateway's hot path that cost more than the HTTP
// parsing itself.
import type { IncomingHttpHeaders } from 'node:http';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { util, type Dispatcher } from 'undici';
import { ChunkQueue } from '../chunk-queue.js';
import type { AbortWatch } from '../request-abort.js';

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** the body; stopping early (`return`, a `break` out of for-await) aborts the call */
  body: AsyncIterableIterator<Buffer>;
  /**
   * One header as `headers[name]` holds it (`name` in lower case), read without building `headers`
   * when the response has its raw list (see `headerOf`).
   */
  header?(name: string): string | string[] | undefined;
}

/** `res.headers[name]` (`name` in lower case), without building every header when it need not. */
function headerOf(res: UpstreamResponse, name: string): string | string[] | undefined {
  return res.header !== undefined ? res.header(name) : res.headers[name];
}

/** A header's value, the first when it came more than once (as failover.ts `header` reads `res.headers`). */
export function upstreamHeader(res: UpstreamResponse, name: string): string | undefined {
  const value = headerOf(res, name);
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A response head from undici's raw header list. On the hot path the gateway reads two or three
 * headers of an answer (its content type, encoding and request id): each is found in the raw list
 * when asked for, and `headers` (every header, as undici's parseHeaders makes them) is built only
 * if something reads it (an error answer, a recording, a compressed body).
 */
class UpstreamHead implements UpstreamResponse {
  private parsed: IncomingHttpHeaders | undefined = undefined;

  constructor(
    readonly statusCode: number,
    private readonly raw: Buffer[],
    readonly body: AsyncIterableIterator<Buffer>,
  ) {}

  get headers(): IncomingHttpHeaders {
    return (this.parsed ??= util.parseHeaders(this.raw) as IncomingHttpHeaders);
  }

  /**
   * As undici's parseHeaders makes it: names compared in lower case, values read as latin1, and a
   * name that came more than once gives the array of its values in order.
   */
  header(name: string): string | string[] | undefined {
    if (this.parsed !== undefined) return this.parsed[name];
    const raw = this.raw;
    // a name that starts with a letter a-z: a key that does not (in either case) is not it, read no further
    const c = name.charCodeAt(0);
    const letter = c >= 0x61 && c <= 0x7a;
    let value: string | string[] | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i]!;
      if (key.length !== name.length || (letter && (key[0]! | 0x20) !== c) || key.toString('latin1').toLowerCase() !== name) continue;
      const v = raw[i + 1]!.toString('latin1');
      if (value === undefined) value = v;
      else if (typeof value === 'string') value = [value, v];
      else value.push(v);
    }
    return value;
  }
}

function abortError(reason: unknown): Error {
  return reason instanceof Error ? reason : Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' });
}

/** How a body read straight by the client's chain settles: its end noted, its failure as the client sees it. */
export interface BodySettle {
  ended(): void;
  failed(err: unknown): unknown;
}

/**
 * The handler of one call (undici's handler callbacks) and the reader of its body (a ChunkQueue:
 * `onData` returns false past the read-ahead, which pauses the socket). `response` resolves with
 * the status and headers, or rejects with the transport error (its undici code kept:
 * UND_ERR_HEADERS_TIMEOUT, ECONNREFUSED...) or the signal's reason.
 */
export class UpstreamCall extends ChunkQueue {
  readonly response: Promise<UpstreamResponse>;
  /** how `response` settles; both null once it has (no object holding the pair per call) */
  private resolveHead: ((r: UpstreamResponse) => void) | null = null;
  private rejectHead: ((err: unknown) => void) | null = null;
  private abortCall: ((err?: Error) => void) | null = null;
  private resumeCall: (() => void) | null = null;
  /** set once the answer's reader is the client's chain (`settleWith`); the failure it was shown */
  private settle: BodySettle | null = null;
  private shown: unknown = undefined;

  constructor(private readonly signal: AbortWatch) {
    super();
    this.response = new Promise((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    const err = abortError(this.signal.reason);
    if (this.abortCall !== null) this.abortCall(err);
    else this.onError(err); // not connected yet: undici is told at onConnect
  };

  private detach(): void {
    this.signal.removeEventListener('abort', this.onAbort);
  }

  /** From now on the end and a failure are delivered as `settle` says (once each). */
  settleWith(settle: BodySettle): void {
    this.settle = settle;
  }

  protected override endDelivered(): void {
    const settle = this.settle;
    this.settle = null;
    settle?.ended();
  }

  protected override failureShown(err: unknown): unknown {
    const settle = this.settle;
    if (settle === null) return this.shown ?? err;
    this.settle = null;
    return (this.shown = settle.failed(err));
  }

  protected resumeProducer(): void {
    this.resumeCall?.();
  }

  /** the reader stopped early (or the call failed): abort the call unless it is over */
  protected stopProducer(): void {
    this.detach();
    if (!this.sourceEnded) this.abortCall?.(abortError(undefined));
  }

  // undici's handler callbacks

  onConnect(abort: (err?: Error) => void): void {
    if (this.signal.aborted || this.failed) abort(abortError(this.signal.reason));
    else this.abortCall = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    this.resumeCall = resume;
    const resolve = this.resolveHead;
    this.resolveHead = this.rejectHead = null;
    resolve?.(decoded(new UpstreamHead(statusCode, rawHeaders, this)));
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.push(chunk);
  }

  onComplete(): void {
    this.detach();
    this.end();
  }

  onError(err: Error): void {
    this.detach();
    const reject = this.rejectHead;
    if (reject !== null) {
      this.resolveHead = this.rejectHead = null;
      this.fail(err);
      reject(err);
      return;
    }
    this.fail(err);
  }
}

/** Start a call on `dispatcher`; resolves with the response head (the body is read from it). */
export function dispatchCall(dispatcher: Dispatcher, opts: Dispatcher.DispatchOptions, signal: AbortWatch): Promise<UpstreamResponse> {
  const call = new UpstreamCall(signal);
  if (signal.aborted) call.onError(abortError(signal.reason));
  else dispatcher.dispatch(opts, call as unknown as Dispatcher.DispatchHandler);
  return call.response;
}

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * The gateway asks for no compression, but a provider or a proxy in front of it may compress anyway.
 * Its body is decoded here and `content-encoding` dropped with it: passed on compressed, or
 * decoded with the header kept, a client fails ("Decompression error: ZlibError"), and an error
 * body is read as binary noise (FAILURE-MODES F74). An uncompressed answer is returned as is.
 */
function decoded(res: UpstreamResponse): UpstreamResponse {
  const encoding = headerOf(res, 'content-encoding');
  const make = typeof encoding === 'string' ? DECODERS[encoding.trim().toLowerCase()] : undefined;
  if (make === undefined) return res;
  const inflater = make();
  pipeline(res.body, inflater).catch(() => undefined); // a failure surfaces on the reader's side
  const { 'content-encoding': _encoding, 'content-length': _length, ...headers } = res.headers;
  return { statusCode: res.statusCode, headers, body: inflater[Symbol.asyncIterator]() as AsyncIterableIterator<Buffer> };
}
