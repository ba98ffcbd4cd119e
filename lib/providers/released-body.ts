// A large request body, handed to undici so that it can be collected once written. undici keeps a
// Buffer body on its request, and the request in its queue until the response has ended: a
// streamed answer kept the whole upstream request (a Claude Code request is 100-200 KB) for as long
// as it streamed (issue #21, memory per open stream). An iterable body is only referenced until it
// has been written; this one hands its one chunk out and forgets it. Small bodies stay Buffers:
// undici writes those with the head in one corked write, the cheaper path per request.

/** From this size a body goes upstream as a `ReleasedBody` (with its length in `content-length`). */
export const RELEASED_BODY_BYTES = 64 * 1024;

/** One chunk, handed out once and then not referenced (not a generator: it would keep its parameter). */
export class ReleasedBody implements AsyncIterableIterator<Buffer> {
  private chunk: Buffer | null;

  constructor(chunk: Buffer) {
    this.chunk = chunk;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.chunk;
    if (chunk === null) return Promise.resolve({ done: true, value: undefined });
    this.chunk = null;
    return Promise.resolve({ done: false, value: chunk });
  }

  return(): Promise<IteratorResult<Buffer>> {
    this.chunk = null;
    return Promise.resolve({ done: true, value: undefined });
  }
}

/** The body and headers undici gets: a large body as a `ReleasedBody` with its length, else as it is. */
export function upstreamBody(body: string | Buffer, headers: Readonly<Record<string, string>>): { body: string | Buffer | ReleasedBody; headers: Readonly<Record<string, string>> } {
  if (body.length < RELEASED_BODY_BYTES / 4) return { body, headers }; // a string of fewer chars than this is never that many bytes
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (bytes.length < RELEASED_BODY_BYTES) return { body: bytes, headers };
  return { body: new ReleasedBody(bytes), headers: { ...headers, 'content-length': String(bytes.length) } };
}
